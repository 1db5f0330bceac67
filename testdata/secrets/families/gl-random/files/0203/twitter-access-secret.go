twitterToken := "cjbb4vc3z1bnlfmrtp71qakpsl36uibcv3rd17030m7ri"
