db_password_token = "Ln^$B,"
