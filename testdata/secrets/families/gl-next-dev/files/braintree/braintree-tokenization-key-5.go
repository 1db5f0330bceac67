nonMatchingToken := "development_iozq5afm_p9qelmclrpy6m4gp"
