gitlabToken = "GR1348941a95fn732uwal4chpztfl"
