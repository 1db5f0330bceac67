api_token_main = "xqZKm4bV3AyAVHnyrvWdFrK9xiRGHOY3"
