curl "https://api.hubapi.com/contacts/v1/lists/all/contacts/all?hapikey=376614d3-e37e-261a-3b65-6cafeb9e4b9a&count=100"
