import requests
TOKEN_URL = "https://graph.facebook.com/oauth/access_token?client_id=437269759870093&client_secret=abce4265df2da33ebffdf5ced5756533&grant_type=client_credentials"
DOCS = "https://github.com/facebook/zstd/blob/e01ac5e8a2b0f13d2849bdab9b2b63414cff5c1e/doc/zstd_compression_format.md"
