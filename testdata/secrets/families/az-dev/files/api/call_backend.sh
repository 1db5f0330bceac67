curl -H "Ocp-Apim-Subscription-Key: WilpNt1kHzAJTuBS5Ncnm7V+jKKpcjuVv2ZqQNlhnzcj7BG/RTewHhCDYKAkZBA6PgZ7eFWbwjIuAPIMNw09ew==" https://acme-apim.azure-api.net/orders/v1/list
curl -H "Ocp-Apim-Subscription-Key: $APIM_KEY" https://acme-apim.azure-api.net/orders/v1/list
