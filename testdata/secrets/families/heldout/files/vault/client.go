	client.SetToken("s.EfEB1EQBSQutk8XNfcYO2Wvl")
	s.AcceptanceTimeoutSeconds = 30
