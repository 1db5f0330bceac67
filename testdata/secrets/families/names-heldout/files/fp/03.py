token_type_prod = 'Bearer'
