auth = "p7CgQ0PBQFI14zGtSnovm14TUOizwd1i"
