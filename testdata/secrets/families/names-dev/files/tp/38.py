x_api_key = "2nfr5pyzPCB9t2039bicBTW5ZE9LFaez"
