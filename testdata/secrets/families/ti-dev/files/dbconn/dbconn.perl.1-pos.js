$dbh = DBI->connect('dbi:Pg:dbname=app;host=db', 'admin', 'P@ssw0rd')
