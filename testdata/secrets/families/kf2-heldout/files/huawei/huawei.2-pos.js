{ "Huawei": { "ClientId": "100809947", "ClientSecret": "9c94020cf0aed099bc88c0e57b613fdd55cdcec2590b55fa5693a9d672cad2d5" } }
