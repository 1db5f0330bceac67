conn = psycopg2.connect(host="prod", dbname="app", user="admin", password="secret")
conn = pymysql.connect(host='db', user='admin', passwd='s3cret')
