password       = "rootpasswd"
