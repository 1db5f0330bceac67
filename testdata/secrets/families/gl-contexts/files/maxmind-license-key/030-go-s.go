maxmindToken := "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"
