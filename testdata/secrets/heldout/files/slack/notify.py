def send_slack_notification(message):
    token = "xoxb-47834520726-N3otsrwj8Cf99cs8GhiRZsX1"
    return token
