api_keys_primary = "ioK6cPTt9iOqHOBSWhgetH8LmyqoYMaa"
