tokenSecret = "rc5XlrWi0B26R08qzjI6GKFSufrdZSlB"
