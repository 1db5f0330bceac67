var client = new SearchClient(new Uri(endpoint), "hotels", new AzureKeyCredential("dRXV1N29t2tNJUZrSSxaTs+BiaGfeAthOP/1NpnL4SAzSeD3GZDC"));
