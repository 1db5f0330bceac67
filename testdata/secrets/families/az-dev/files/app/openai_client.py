from openai import AzureOpenAI
client = AzureOpenAI(
    api_key="GdbFJxV25JfzMMEvFlruXmBlfVl5krJ2C3xQNBAHnqxwlNcI3EioJQQJ99nD9e0G21lE6NSZ1k9hACOG4hvD",
    api_version="2024-12-01-preview",
    azure_endpoint="https://acme-openai.openai.azure.com/",
)
