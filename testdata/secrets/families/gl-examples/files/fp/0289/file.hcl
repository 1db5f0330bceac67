password = "${aws_db_instance.default.password}"
