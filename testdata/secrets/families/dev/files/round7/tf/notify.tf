  body = "{\"messagebird_access_key\": \"8kwQj1qH9CstFpS8gELRersl9\"}"
