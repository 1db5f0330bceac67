poly_passphraseToken = "qoVfIk0NtJUI"
