shopifyToken := "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"
