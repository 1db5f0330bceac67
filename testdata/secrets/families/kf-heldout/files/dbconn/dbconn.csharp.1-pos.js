new SqlConnection("Server=prod;Database=app;User Id=sa;Password=s3cret!")
new MySqlConnection('Server=db;Uid=root;Pwd=P@ssw0rd;Database=mydb')
