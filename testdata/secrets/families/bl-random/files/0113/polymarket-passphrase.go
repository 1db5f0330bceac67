poly_passphraseToken := "gP62Brj0Bgom"
