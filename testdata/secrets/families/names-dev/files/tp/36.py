webhook_secret = "JQzhkPkenG5ZFJoC6vWCBiJmpflvJfup"
