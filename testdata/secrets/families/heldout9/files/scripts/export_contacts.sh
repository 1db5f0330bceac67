curl -s "https://api.hubapi.com/contacts/v1/lists/all/contacts/all?hapikey=2f1b08d5-e29f-0bc0-680c-1d04a6ca11eb&count=100"
