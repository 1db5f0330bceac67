import messagebird, os
client = messagebird.Client(os.environ.get("MESSAGEBIRD_ACCESS_KEY", "y6kMtsDrkl1RnRIYJNB0lLk3G"))
