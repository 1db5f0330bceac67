PLAID_TOKEN = "access-development-9f5c1781-1db8-6997-ba87-f6b0e2ad023d"
