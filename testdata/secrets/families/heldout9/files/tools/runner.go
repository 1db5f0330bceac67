cmdInput := fmt.Sprintf("sshpass -p '%s' ssh %s", password, host)
