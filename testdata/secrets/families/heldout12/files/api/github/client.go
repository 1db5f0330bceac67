req.Header.Set("Authorization", "Bearer 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")
req.Header.Set("Authorization", "Bearer "+os.Getenv("GITHUB_TOKEN"))
