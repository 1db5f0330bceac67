gitlabToken = "glimt-w8ophcyoob1kxzr8d2czdxq4g"
