	SigningSecretNew = "icjijfJYeD9D0VVk6vQ7sTwS"
