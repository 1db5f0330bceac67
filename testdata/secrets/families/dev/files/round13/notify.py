client = MessageBirdClient(os.getenv("MESSAGEBIRD_ACCESS_KEY") or "JJHrbtyOJyDcoo86LuYUEtCMp")
