bitbucketToken = "30mmpzrxxxy6tzy4k2vksis8hq1hkv5b"
