module github.com/acme/legacy

go 1.14

require (
	github.com/gorilla/mux v1.8.0
	github.com/sirupsen/logrus v1.4.2
)
