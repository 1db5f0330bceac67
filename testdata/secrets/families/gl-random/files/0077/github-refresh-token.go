githubToken := "ghr_t67k8xf8xjo5msks1mmvihmk0bml8b6ubxm7"
