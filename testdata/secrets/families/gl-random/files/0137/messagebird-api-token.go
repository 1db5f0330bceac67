message-birdToken := "c2sxmddun5ku4z9bv22fjmoxg"
