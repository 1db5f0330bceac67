jwt_secret_key = "mtf7EbsDe0G9Cryn687neLfjVHq8xiM0"
