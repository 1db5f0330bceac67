import jwt from 'jsonwebtoken'

export const privateKey = '-----BEGIN RSA PRIVATE KEY-----\r\nOb+Ka8UOYXwSJZ06Cs3UFtxGGxgxZHQ3+WXY/+K8OxIRjTOIpjJYW/tCJoVcTBwi\r\nq8Jo/qBQr85zXJgNRRxQgmMOw+1pL28VmebDQtpaSiV+gL8tiVmkb/Ldl/DzC8M6\r\nMBZnGeNOMfqLuNjjwSW7hCZ72h4FoDggfimuvBh7EgNX3UOe48g1euTwqYcmaVSf\r\nERGKk0+1urXnksvHMKsKOCVNwkuhWD1oOR3HbRkBrqEmY6qGaq8tiueQJNrWtJST\r\n26+k13jVoCnkn5XSPld/0dGLmiB09KDyKCW0Hbe3paLyXjXNPnqXBZ0qaK14HMMu\r\nY6KBXM9L4OTseKJQ4Y0s4s9hQYWr==\r\n-----END RSA PRIVATE KEY-----'
export const publicKey = 'placeholder'
