resendApiKey := "re_1234abc_aBcDeFgHiJkLmNoPqRsTuVwX"
