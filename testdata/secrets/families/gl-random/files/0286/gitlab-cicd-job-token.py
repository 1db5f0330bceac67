gitlabToken = "glcbt-ub7ug_ici36ssbqg9xwsb5whrq"
