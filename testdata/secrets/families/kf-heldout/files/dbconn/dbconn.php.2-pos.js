pg_connect("host=dbserver user=admin password=s3cret dbname=mydb")
