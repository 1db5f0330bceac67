pg_connect("host=$pghost user=$pguser password=$pgpass")
pg_connect($dsn)
