pymysql.connect('host=db user=root password=p@ssw0rd dbname=mydb')
