gitlabToken := "gldt-sicasl74m38mkvjwxct2"
