from azure.cosmos import CosmosClient
client = CosmosClient("https://acme-orders.documents.azure.com:443/", credential="tLZwp6u9vom06Ih1j8ToJ+KxoUMxGC0DazsDSQSfcXbEL6eTCEewyNfx1jba6DpkfDC6ZonmCB2rACDbNtfCpA==")
