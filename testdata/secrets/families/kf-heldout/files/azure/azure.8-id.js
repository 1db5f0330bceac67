AzureAd: { clientId: fedcba98-7654-4321-8fed-cba987654321 }
