import boto3
AWS_ACCESS_KEY_ID = "AKIARMASVGVIVCLYPIUW"
session = boto3.Session(aws_access_key_id=AWS_ACCESS_KEY_ID)
