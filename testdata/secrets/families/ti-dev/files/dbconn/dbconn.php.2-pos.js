pg_pconnect('host=prod user=app password=P@ssw0rd dbname=analytics')
