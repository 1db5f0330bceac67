yousign_api_key = "8ab7d4ced4483472fb898df8f520eb10";
