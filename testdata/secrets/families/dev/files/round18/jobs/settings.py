WAREHOUSE_CREDENTIALS = "Stwj2Pib09ElyRWd9k0urj9TGdLeKq"
GCP_CREDENTIALS = "/var/run/secrets/gcp/credentials.json"
credentialsId = "8deedfcb-ff6f-4e48-92fd-3193a0206f21"
