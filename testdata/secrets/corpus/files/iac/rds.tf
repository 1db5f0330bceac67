resource "aws_db_instance" "app" {
  password = "Winter2024!"
}
