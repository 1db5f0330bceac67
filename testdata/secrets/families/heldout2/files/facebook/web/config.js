   # config.facebook.key = "34cebc81c056a21bc66e212f947d73ec"
    var fbApiKey = '0278fc1adf6dc1d82a156f306ce2c5cc';
     fbApiKey:            "171e84fd57f430fc59afa8fad3dbda2a",
