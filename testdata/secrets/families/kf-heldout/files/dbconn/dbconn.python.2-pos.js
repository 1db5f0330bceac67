psycopg2.connect("host=prod dbname=app user=admin password=secret")
