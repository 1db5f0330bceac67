jdbc:sqlserver://sql.proddb.org:1433;databaseName=inventory
jdbc:sqlserver://host:1433;database=mydb;user=admin
jdbc:sqlserver://host:1433;password=${SQL_PASS};database=mydb
