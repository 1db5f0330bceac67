gitlab-runner register --registration-token GR1348941MsjJCLsBoH-rb2Mj1-At
