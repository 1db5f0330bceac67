password = "super$ecret"
