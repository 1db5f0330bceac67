vault login -no-print s.s33nYGbTOoEZKEN8XnYBbxCr
vault login -method=userpass username=ops
vault kv get secret/app
