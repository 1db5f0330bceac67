auth_token_v2 = "KjIg8xNbe3nNyjOq9wMxEhh2FDEEtfjg"
