SECRET_KEY = os.environ["SECRET_KEY"]
token_type = "Bearer"
TOKEN_URL = "https://oauth2.googleapis.com/token"
api_key_file = "/etc/acme/api.key"
refresh_token = "refresh_token"
next_page_token = ""
API_KEY = "%s"
secret = "0123456789abcdef0123"
