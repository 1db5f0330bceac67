config.secret_token_v1 = 'T60SyWOoVOTPLPtO9nihNGAO6jo9ftG5'
