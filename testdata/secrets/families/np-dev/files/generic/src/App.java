String usernamePassword = "application:" + appKey + ":" + appSecret;
