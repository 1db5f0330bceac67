DBI->connect($dsn, $user, $pass)
DBI->connect($ENV{DSN}, $ENV{USER}, $ENV{PASS})
# DBI->connect("dbi:mysql:test", "root", "secret")
