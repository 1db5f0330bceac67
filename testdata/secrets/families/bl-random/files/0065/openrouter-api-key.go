openrouterToken := "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"
