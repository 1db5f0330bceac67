class { 'apache::mod::authn_dbd':
:authn_dbd_params => 'host=db_host port=3306 user=apache password=###### dbname=apache_auth',
}
