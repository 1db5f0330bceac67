client_secret_b64 = "9ojfljoQoaF1LlqsajAIxNKu8iS2G8NP"
