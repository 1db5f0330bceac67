String key = "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";
