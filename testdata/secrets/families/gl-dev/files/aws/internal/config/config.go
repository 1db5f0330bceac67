package config

var (
	aws_token = "AKIALALEMEL33243OLIB"
)
