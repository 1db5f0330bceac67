string huggingfaceToken = "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";
