{"facebook": {"app_id": "123", "app_secret": "short"}}
{"google": {"client_id": "12345", "client_secret": "abc123"}}
