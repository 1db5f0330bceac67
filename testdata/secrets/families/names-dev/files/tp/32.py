hmacKey = "OGr4hTxoF54Fzbka8FRCztUjAwyuh1va"
