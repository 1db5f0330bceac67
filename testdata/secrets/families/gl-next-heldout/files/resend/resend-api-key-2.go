resendApiKey := "re_0234abcd_aBcDeFgHiJkLmNoPqRsTuVwX"
