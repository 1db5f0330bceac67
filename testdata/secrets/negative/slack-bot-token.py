SLACK_BOT_TOKEN = "xoxb-your-bot-token"
SLACK_BOT_TOKEN2 = "xoxb-123-456-Q1y3GQsMpSscDlkrCaqx9vJu"
