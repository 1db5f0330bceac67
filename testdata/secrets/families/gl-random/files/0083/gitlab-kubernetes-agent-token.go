gitlabToken := "glagent-nvbbbqkoafavw7qitedfz27pzkqzqphnjcl87szq0zyj3ooa2d"
