"Data Source=10.0.0.5;Initial Catalog=AppDB;Password=hunter2"
