string notionToken = "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";
