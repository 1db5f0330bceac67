# Set up the client for OpenAI
client = OpenAI(base_url="https://api.groq.com/openai/v1/", api_key="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")
