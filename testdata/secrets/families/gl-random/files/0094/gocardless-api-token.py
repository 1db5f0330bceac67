gocardlessToken = "live_8qwu=f2n154-qo3hrm86ip2ug5qt8c8b1r4ncopd"
