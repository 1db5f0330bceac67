resendApiKey := "re_I234abcd_aBcDeFgHiJkLmNoPqRsTuVwX"
