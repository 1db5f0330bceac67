resendApiKey := "re_1234abcl_aBcDeFgHiJkLmNoPqRsTuVwX"
