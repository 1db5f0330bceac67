const headers = { Authorization: `Bearer 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` };
