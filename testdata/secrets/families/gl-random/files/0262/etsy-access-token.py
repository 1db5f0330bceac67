ETSYToken = "9avqw6crqfcm6meb9knsibyt"
