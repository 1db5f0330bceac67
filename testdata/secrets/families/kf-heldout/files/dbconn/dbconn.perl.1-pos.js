my $dbh = DBI->connect("dbi:mysql:database=test", "root", "secret");
