asanaToken := "y952jp7vo1l7bnmag5gi5l2a13jc12pq"
