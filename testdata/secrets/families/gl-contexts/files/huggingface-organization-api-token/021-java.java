String huggingfaceToken = "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";
