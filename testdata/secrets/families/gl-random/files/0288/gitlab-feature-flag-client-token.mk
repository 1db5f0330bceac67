GITLAB_TOKEN = "glffct-gxnmdhh5mzbqhcyi96ko"
