vaultToken = "s.9QiBCcaVXs5ox6HxmjO7Rhol"
