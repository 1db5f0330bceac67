cloudflareToken = "5dedd9dc6c900611e3f4c26aaac66b2c1a8f7"
