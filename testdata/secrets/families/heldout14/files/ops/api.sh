curl -H 'X-API-Key: BOhPJ71MjGjWRrJRWGA4PKHed950hqOZ' https://api.example.io/v1/things
