clientSecretKey := "PAWVHOEyPOwQBiWe03MzVMmWhbyszm"
clientSecret := settings.GitHubAPISecret
