LOB_TOKEN = "test_ecdd8cb49a69a915ecb80faaa3419eacf6a"
