braintreeToken := "access_token$sandbox$spo63ffj7e4jrrgo"
