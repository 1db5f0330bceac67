sumoToken := "suf1kYOHQwKuq8"
