etsyToken := "kn4rwpi2lc2xcjzoqu0lic2w"
