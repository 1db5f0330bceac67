apiSecretProd = "YXg4JdpmrcXgGCJbW56eCuNGMGmSrCGI"
