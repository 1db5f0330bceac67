{"auths":{"index.docker.io/v1/":{"auth":"dXNlcjp0b2tlbg=="}}}
