psycopg2.connect(os.environ["DATABASE_URL"])
mysql.connector.connect(**config)
psycopg2.connect(password=os.getenv("DB_PASSWORD"))
