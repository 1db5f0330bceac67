import boto3
client = boto3.client("s3", aws_access_key_id="ASIAOKPVJOSF3AZQRY2P")
