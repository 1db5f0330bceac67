braintree_token = "access_token$production$x289tu971bl67gno"
