DBI.connect('DBI:Pg:prod_db', 'admin', 'P@ssw0rd')
