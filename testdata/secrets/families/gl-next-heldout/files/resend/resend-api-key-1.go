resendApiKey := "re_1234abcd_aBcDeFgHiJkLmNoPqRsTuVwX"
