"maxmind": {"account_id": "654321", "license_key": "..."}
