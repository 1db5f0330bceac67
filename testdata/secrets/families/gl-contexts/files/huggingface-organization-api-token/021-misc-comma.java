System.setProperty("HUGGINGFACE_TOKEN", "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")
