administrator_login_password = var.db_password
