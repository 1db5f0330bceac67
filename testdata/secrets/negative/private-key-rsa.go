package pemutil

const rsaHeader = "-----BEGIN RSA PRIVATE KEY-----"

func isRSA(b []byte) bool { return bytes.HasPrefix(b, []byte(rsaHeader)) }

// Go's own tests spell test keys as TESTING KEY so scanners skip them.
var testKey = `-----BEGIN RSA TESTING KEY-----
PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5Kjp1vRt+1f
jORS/6ilI8ihN5KXSc7Tvo/hBKqFYY/kv5ZJr3J1TWDtkwtDDb+xHKas1VOqg6YY
-----END RSA TESTING KEY-----`
