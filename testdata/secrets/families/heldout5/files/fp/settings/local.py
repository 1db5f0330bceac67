DATABASES["default"]["PASSWORD"] = env("DB_PASSWORD", default=None)
EMAIL_HOST_PASSWORD = None
REDIS_URL = f"redis://:{REDIS_PASSWORD}@redis:6379/0"
