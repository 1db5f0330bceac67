administrator_login_password = "thisIsDog11"
