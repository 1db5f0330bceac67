gcpToken := "AIzaFgK-RbqoFJmv5VICYs8m1Flq1C5XgAelmQv"
