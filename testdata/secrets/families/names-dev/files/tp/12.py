api_creds = "wZPf1Qh6yYTWmE4lBYOvfZ8UzDzV8fUk"
