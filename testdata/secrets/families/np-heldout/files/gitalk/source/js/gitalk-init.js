var gitalk = new Gitalk({
    "clientID": "7bf1e92eaff34fd005dc",
    "clientSecret": "d151c7bc86d545dafe2c1de75e3a174623230a2a",
    "repo": "wibble.github.io",
});
