package main

import (
	"net/http"
	"os"
)

var token = os.Getenv("GITHUB_TOKEN")

func login(req *http.Request, user, password string) error {
	req.Header.Set("Authorization", "Bearer "+token)
	req.SetBasicAuth(user, password)
	return nil
}

const passwordMinLength = 12

const apiKeyHeader = "X-API-Key"
