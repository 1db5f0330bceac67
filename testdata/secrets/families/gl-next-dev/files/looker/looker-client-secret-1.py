looker_token = "YNdjMcOFNJHOkl3F568OJDgC"
