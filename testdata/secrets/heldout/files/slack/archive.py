import requests

def delete(message, x):
    data = {'token':'xoxb-262541194339-1293084920079-Z21cXgXdDdZDABIcrdG3D9OF','channel':'C017XD909UJ','ts':message[x],'pretty':'1'}
    return requests.post("https://slack.com/api/chat.delete", data=data)
