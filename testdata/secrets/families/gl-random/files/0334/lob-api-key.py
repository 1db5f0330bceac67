lobToken = "test_bf032e4bb27868ea725d1e4a8c8463910d5"
