BB_USER = "deploy-bot"
BB_APP_PASSWORD = "ATBBHMxsWqQGCKiAia4iemp8ADwmqXKBkvGP"
