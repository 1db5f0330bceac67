new-relicToken := "NRII-df17b7740efc0cc6cae6debb20fbc15b"
