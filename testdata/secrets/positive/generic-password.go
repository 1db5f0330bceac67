package db

func connect() {
	dbPassword := "IUL%jyspvm1FxV8"
	_ = dbPassword
}
