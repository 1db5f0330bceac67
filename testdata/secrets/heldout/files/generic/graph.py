credential = UsernamePasswordCredential(
    client_id='da34859b-2ae4-48c3-bfe0-1b28b7cf2eed',
    username='donjuandemarco',
    password='1qay@WXS????',
    tenant_id='bc877b20-f135-4c13-a266-8ed26b8f0f4b')
