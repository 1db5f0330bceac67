githubToken = "ghp_4aqnfxnsc9azcr83zpbokv03kcp3ook9p6fp"
