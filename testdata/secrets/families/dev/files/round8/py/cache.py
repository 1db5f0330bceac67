CACHE_URL = f"rediss://default:{settings.REDIS_PASSWORD}@cache:6380/1"
