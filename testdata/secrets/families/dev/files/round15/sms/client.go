req.Header.Set("Authorization", "AccessKey Z1U9ueHK7CN1w4zPbW1GBU4ys")
req.Header.Set("Authorization", "AccessKey YOUR_ACCESS_KEY")
