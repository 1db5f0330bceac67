import requests
r = requests.get("https://rest.messagebird.com/balance", headers={"Authorization": "AccessKey Ne0Dl8iJWU6mXNy4hWdnNGGQG"})
