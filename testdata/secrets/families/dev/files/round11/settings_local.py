os.environ.setdefault("REDIS_PASSWORD", "FIoWFqEWMtFutkT!Kj2")
