lookerToken := "gcx7yk7sgntcwi5pc7yy"
