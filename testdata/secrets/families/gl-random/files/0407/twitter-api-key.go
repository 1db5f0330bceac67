twitterToken := "56dnyxt4uw467pcud5m4swkma"
