proxyAuth = "kwXoIIXGvOoNZYW2mZp0zVZomHFwUbbY"
