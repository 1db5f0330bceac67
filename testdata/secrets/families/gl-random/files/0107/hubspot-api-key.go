hubspotToken := "6c40da11-fbf3-261f-26bd-bae5afe7f1bc"
