accessKeyId = "hkqdlm7tOtHWnsCGRlrwZbqcabUGJmGE"
