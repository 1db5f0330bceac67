twilioToken := "SK5952c0d2954d161aa0b562ef7cba761b"
