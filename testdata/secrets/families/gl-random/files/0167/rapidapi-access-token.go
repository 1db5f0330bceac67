rapidapiToken := "z5tju3byrxzzrya-eo94xnmbwzvv1flcai346lrsawb2a19ut2"
