DEVCYCLE_TOKEN = "dvc_client_5n05z65ap8vfd6m3ubcnmshl"
