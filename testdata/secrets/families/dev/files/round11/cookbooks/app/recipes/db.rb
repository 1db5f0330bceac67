mysql_database_user 'app' do
  connection mysql_connection_info
  password 'OwS.-mfvJJxEB!tzKf'
  action :create
end
