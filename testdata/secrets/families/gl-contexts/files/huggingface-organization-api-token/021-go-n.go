var huggingfaceToken string = "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"
