import boto3

AWS_KEY = "AKIALALEMEL33243OLIB"
key = AKIAXXXXXXXXXXXXXXXX
aws_access_key = "AKIAIOSFODNN7EXAMPLE"
client = boto3.client("s3", aws_access_key_id=AWS_KEY)
