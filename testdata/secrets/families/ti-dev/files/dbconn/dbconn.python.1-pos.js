conn = mysql.connector.connect(host='db', user='root', password='p@ssw0rd')
