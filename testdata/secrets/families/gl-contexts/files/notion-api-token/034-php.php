$notionToken .= "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"
