const privateaiToken = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
