package shape

import "bytes"

// InlinePEMBody reports a PEM body written on one line with escaped
// newlines (a service account's JSON key) that carries a real key: a run
// of 40 or more base64 bytes, not "..." or a stand-in word.
func InlinePEMBody(v []byte) bool {
	return len(Base64Run(v)) >= 40
}

// KeyFileHoldsKey reports a service account's key file whose private_key
// holds a PEM block with a real body.
func KeyFileHoldsKey(file []byte) bool {
	_, after, ok := bytes.Cut(file, []byte(`"private_key"`))
	if !ok {
		return false
	}
	_, pem, ok := bytes.Cut(after, []byte("PRIVATE KEY-----"))
	if !ok {
		return false
	}
	if end := bytes.IndexByte(pem, '"'); end >= 0 {
		pem = pem[:end]
	}
	return InlinePEMBody(pem)
}

// Base64Run returns the longest run of base64 bytes in b (escaped "\n"
// sequences end a run).
func Base64Run(b []byte) []byte {
	best, start := []byte(nil), -1
	for i := 0; i <= len(b); i++ {
		if i < len(b) && IsBase64Byte(b[i]) && !(b[i] == 'n' && i > 0 && b[i-1] == '\\') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = b[start:i]
		}
		start = -1
	}
	return best
}
