from firecrawl import FirecrawlApp
app = FirecrawlApp(api_key="fc-7da8b1ca1d2150c496e91440d777fea8")
