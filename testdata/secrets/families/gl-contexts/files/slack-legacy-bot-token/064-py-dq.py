slackToken = "xoxb-263594206564-FGqddMF8t08v8N7Oq4i57vs1"
