deepseekToken = "sk-b2dddf86efa13ea13510061c5cabe89e"
