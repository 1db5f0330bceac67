jdbc:postgresql://host:5432/db?password=${DB_PASS}
