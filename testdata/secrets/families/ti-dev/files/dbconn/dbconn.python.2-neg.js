psycopg2.connect("host=prod dbname=app")
psycopg2.connect(dsn_string)
