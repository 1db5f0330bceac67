gitlabToken := "glrt-x74m2xbek2jfwrbptvrk"
