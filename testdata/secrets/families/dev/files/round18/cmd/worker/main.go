	secret := config.EnvOrDefault("WORKER_SECRET_KEY", "Ehhc6tRyfBX69UKBQegx9xCqKMf5pGqFlF4nReu6nC4")
	token := config.EnvOrDefault("WORKER_TOKEN", "changeme-token-1")
