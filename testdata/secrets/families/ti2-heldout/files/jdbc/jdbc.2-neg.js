jdbc:postgresql://user:${DB_PASSWORD}@db.host:5432/app
jdbc:mysql://admin:{{password}}@host:3306/db
