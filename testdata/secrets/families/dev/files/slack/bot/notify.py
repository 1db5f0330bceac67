from slack_sdk import WebClient
client = WebClient(token="xoxb-263594206564-FGqddMF8t08v8N7Oq4i57vs1")
client.chat_postMessage(channel="#ops", text="deploy done")
