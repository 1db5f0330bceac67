	tokenLength2 := "WJOszxL4beyrJEuVqjZE0As8" + suffix
