#if DEBUG
          string backend_host = "amazon-subdomain-for-database.string.us-east-1.rds.amazonaws.com";
          string backend_user = "root";
          string backend_pass = "XXXXXXXXXXXXX";
          string backend_db = "database_db";
          string backend_port = "1234";
