import redis
r = redis.StrictRedis(host="acme.redis.cache.windows.net", port=6380, password="CR4zJFqFINUVSFm8+oLppXBjm86svjM98AzCaDPmolZ=", ssl=True)
REDIS_CONN = "acme.redis.cache.windows.net:6380,password=zjGOiALU2HemUhU4I+w2VX5D/s4Kf5Dp7AzCaGG3iHw=,ssl=True,abortConnect=False"
