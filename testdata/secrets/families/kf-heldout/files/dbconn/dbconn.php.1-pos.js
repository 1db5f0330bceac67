mysql_connect("localhost", "root", "password123")
mysqli_connect('db.internal', 'admin', 'P@ssw0rd', 'mydb')
