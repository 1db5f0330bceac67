githubToken = "ghu_d9q9z6q869ik5xo3k2jicq5sztw5h0oxvzps"
