flutterwavePubKeyToken := "FLWSECK_TEST-0eb722092f7b"
