	slackTokenBackup := "g190o5LXLUxCIJtOuJHWBbl0WGHgnOKM"
