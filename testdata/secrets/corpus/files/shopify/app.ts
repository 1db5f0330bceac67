const adminToken = "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";
