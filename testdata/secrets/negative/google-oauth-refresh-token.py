ratio = 1//0
REFRESH = "1//0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
url = "https://example.com/a//0b"
