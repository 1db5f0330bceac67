package fixtures

// Headers a PEM parser recognises; no key body follows them.
const ed25519Header = "-----BEGIN ED25519 PRIVATE KEY-----"

const x25519Header = "-----BEGIN X25519 PRIVATE KEY-----" // then base64
