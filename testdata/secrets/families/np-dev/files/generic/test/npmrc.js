"//localhost:1337/:_password = "+new Buffer("feast").toString("base64")
