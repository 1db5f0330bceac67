GITLAB_TOKEN = "glcbt-fw1vi_n4x1k9jikkecbhjc9xff"
