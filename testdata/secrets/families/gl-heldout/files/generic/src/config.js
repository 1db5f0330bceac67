const validKeyChars = "0123456789abcdefghijklmnopqrstuvwxyz_-."
const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
