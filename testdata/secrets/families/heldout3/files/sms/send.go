package sms
import messagebird "github.com/messagebird/go-rest-api/v9"
var client = messagebird.New("eLuEATfxNbOHchrtG96NJaBE8")
