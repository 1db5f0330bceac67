{ "Huawei": { "ClientId": "100809947", "ClientSecret": "..." } }
