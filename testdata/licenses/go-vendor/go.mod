module example.com/svc

go 1.22

require (
	example.com/agpl v1.0.0
	example.com/gpl2 v0.4.0
	example.com/odd v0.1.0
)
