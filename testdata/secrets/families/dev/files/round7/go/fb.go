package fb
var facebookAppSecret string = "01e4fc2d031c41885221c25f6aaf76fd"
var facebookAppID string = os.Getenv("FB_APP_ID")
