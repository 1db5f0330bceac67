import os
password = os.environ["DB_PASSWORD"]
api_key = os.getenv("STRIPE_API_KEY")
token = settings.SLACK_TOKEN
client_secret = config.get("auth", "client_secret")
secret_key = get_secret("prod/django/secret_key")
AUTH_HEADER = "Authorization"
PASSWORD_FIELD = "password"
if password == confirm_password:
    raise ValueError("passwords differ")
