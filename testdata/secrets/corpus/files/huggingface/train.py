login(token="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")
