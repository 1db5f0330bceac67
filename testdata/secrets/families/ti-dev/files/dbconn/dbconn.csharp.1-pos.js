new NpgsqlConnection("Host=pg;Username=admin;Password=hunter2;Database=app")
