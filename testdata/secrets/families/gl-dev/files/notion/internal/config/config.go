package config

var (
	notion_api_token = "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"
	notion_api_token = "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"
	notion_api_token = "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"
	notion_api_token = "ntn_12345678901"
	notion_api_token = "ntn_123456789012345678901234567890123456789012345678901234567890"
	notion_api_token = "ntn_12345678901abc"
)
