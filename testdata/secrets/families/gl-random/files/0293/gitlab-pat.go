gitlabToken := "glpat-41cz3ay3xiook2omxdln"
