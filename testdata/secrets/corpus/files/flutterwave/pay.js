const encryptionKey = "FLWSECK_TEST965d2chg5a68";
