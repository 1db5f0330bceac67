resendApiKey := "re_1234abcd_OBcDeFgHiJkLmNoPqRsTuVwX"
