secret_access_keyToken = "5T+4zBqgXN/gaGx1afVzQku=AxO/+nB7WXK4sJBx"
