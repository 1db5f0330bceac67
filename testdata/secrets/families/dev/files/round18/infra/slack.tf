  slack_signing_token = "xoxe.xoxb-1-BotRefreshTokenGoesHere"
  alerts_api_token    = "ALERTS-V2-TOKEN-HERE"
