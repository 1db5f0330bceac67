jdbc:sqlserver://sql.proddb.org:1433;databaseName=inventory;user=sa;password=s3cr3t!
jdbc:sqlserver://host:1433;database=mydb;user=admin;password=xK9mP2qR
jdbc:jtds:sqlserver://db.host:1433/mydb;user=svc;password=C0mpl3x-Pa55
