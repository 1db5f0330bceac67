from azure.batch.batch_auth import SharedKeyCredentials
creds = SharedKeyCredentials("acmebatch", "SSOst24TcPgQj3yYcEABYV+S1+DSNkFF8gDRVrzkJNCbpfTOhVFQmR3f6HdT3ZtZqceetXcUkY2q+ABaMZYPxA==")
