cloudflareToken := "y6rff0_dc239sh2i7t8ejkz480sr54cfsnvsxmh6"
