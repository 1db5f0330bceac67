export VAULT_TOKEN=s.DzyAnRfWTcyWQivZlHOg38ZB
vault kv get secret/app
