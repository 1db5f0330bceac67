shopifyToken = "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"
