from huggingface_hub import login
login(token="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")
