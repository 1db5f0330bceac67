jdbc:oracle:thin:${DB_USER}/${DB_PASS}@host:1521:ORCL
