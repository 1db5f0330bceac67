Data Source=myServer;User Id=admin;Password=s3cretP@ss;
Server=prod.db.internal;Database=app;User Id=sa;Password=MyP@ssw0rd!
