AzureAd: { tenantId: aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee }
