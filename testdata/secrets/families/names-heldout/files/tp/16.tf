  api_token_main = "SL29vLRBirAEII8os4aGvknepepJrwUB"
