new SqlConnection(connectionString)
new SqlConnection(ConfigurationManager.ConnectionStrings["db"].ConnectionString)
new SqlConnection("")
