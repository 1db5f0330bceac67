session_secret = "1QsO7jprBGumXxY9B4bZWOz648JJnUfd"
