token_value = "CsMehGAkWvj7FAc9QeWJKY40uvSwMFLZ"
