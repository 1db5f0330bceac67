const MessageBirdClientID = "12345678-abcd-1234-abcd-1234567890ab"
