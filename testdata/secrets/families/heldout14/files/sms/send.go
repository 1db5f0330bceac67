package sms

import messagebird "github.com/messagebird/go-rest-api/v9"

var client = messagebird.New("brLE15JW7dP2XHBlxJX1Bmxzd")
