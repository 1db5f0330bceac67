DRONECI_TOKEN = "us7pyo6d4wo1t40dmvdnwxqxnwl1y2a0"
