fullstoryToken := "na1.2mauhekwaw9525d0rzjjz6gpq8s9rrht"
