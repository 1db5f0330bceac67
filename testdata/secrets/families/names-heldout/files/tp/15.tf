  admin_password_default = "3iGl88hsueNCTiUUghSemvsm"
