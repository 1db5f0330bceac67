DBI.connect(ENV["DATABASE_URL"])
DBI.connect(dsn, user, pass)
# DBI.connect("DBI:Mysql:test", "root", "password")
