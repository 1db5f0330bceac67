import hubspot
client = hubspot.Client.create(access_token='pat-na1-cf34f1db-3c6d-4baa-b8b6-617d0ff1566a')
