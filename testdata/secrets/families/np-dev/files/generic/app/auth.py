cfg = dict(
    client_credential='5pX8Q~MmTI8OMBJFVqMlFR4DE3Spz6Qm.xO.Gbf-'
)
    secret_access_key = 'abcdefg12346+FJQCK'
