val accessTokenSandbox = "BfKXeRjRBzM3EonvvE0W5ZVy"
