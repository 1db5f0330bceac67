variable "db_password" {
  type      = string
  sensitive = true
}
resource "aws_db_instance" "app" {
  password = var.db_password
  username = "app"
}
password = "${random_password.db.result}"
