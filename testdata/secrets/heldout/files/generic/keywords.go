package main

var theapikey = "somefakekey"

func login(username, password string) error { return auth(username, password) }
