	var apiVersionCurrent = "2024-06-01"
