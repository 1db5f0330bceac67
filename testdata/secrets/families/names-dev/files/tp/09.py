user_auth = "VvVqE1SkHbn88HxjSI6bWHtP3fS2qHx6"
