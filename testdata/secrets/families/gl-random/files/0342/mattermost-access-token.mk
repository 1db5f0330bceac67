MATTERMOST_TOKEN = "ldg892o2fwz7g1bhuoplegaq5d"
