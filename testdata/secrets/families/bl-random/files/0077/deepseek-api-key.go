deepseekToken := "sk-456d9305c3c21aa7c0d97c63c7bb10b3"
