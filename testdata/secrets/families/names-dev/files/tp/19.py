github_token_ci = "zvAmwufUxbvJDCTbyvHNsG9eh6Yo4gfq"
