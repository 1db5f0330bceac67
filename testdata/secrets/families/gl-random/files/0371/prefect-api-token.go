api-tokenToken := "pnu_8xn21e4soishkzro7ofj9uwelryb40d8blqw"
