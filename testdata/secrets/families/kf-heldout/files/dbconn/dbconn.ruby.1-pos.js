dbh = DBI.connect("DBI:Mysql:mydb:localhost", "root", "password")
