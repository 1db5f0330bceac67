GRAFANA-CLOUD-API-TOKEN_TOKEN = "glc_bugq2j7zcmh5epikmmrgazkxc6eboz6q"
