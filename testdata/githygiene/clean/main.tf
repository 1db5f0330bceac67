terraform {}
