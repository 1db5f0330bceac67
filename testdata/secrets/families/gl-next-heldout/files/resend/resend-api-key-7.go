resendApiKey := "re_1234abcdaBcDeFgHiJkLmNoPqRsTuVwX"
