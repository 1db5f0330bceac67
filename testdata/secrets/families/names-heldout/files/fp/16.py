TOKEN_NAME_STAGING = 'ci-deploy-token'
