const twilioAccountSid = 'AC712594f590c0d8ace55c04858f7398f9' // Your Account SID from www.twilio.com/console
const twilioApiKeySID = 'SK9b4cc552783500ace5414a1ed3e9fd1a'
const twilioApiKeySecret = 'l6LUelKF2BUtMLace5oShZSmRppadYqI'
