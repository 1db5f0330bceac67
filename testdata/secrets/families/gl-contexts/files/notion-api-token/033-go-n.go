var notionToken string = "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"
