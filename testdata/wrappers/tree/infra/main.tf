resource "aws_s3_bucket" "reports" {
  bucket = "scand-fixture-reports"
  acl    = "public-read"
}

resource "aws_security_group" "admin" {
  name = "admin"

  ingress {
    description = "ssh from anywhere"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}
