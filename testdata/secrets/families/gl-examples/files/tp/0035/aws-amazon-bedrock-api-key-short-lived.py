amazonbedrockapikeyshortlivedToken = "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"
