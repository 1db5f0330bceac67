huggingfaceToken := "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"
