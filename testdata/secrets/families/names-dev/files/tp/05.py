access_token_old = "FdnXsiVpzz63FfkCzJr4i0B3JrTAwR4y"
