poly_keyToken := "80a8c24d-bac4-3852-b964-b733ae3a4381"
