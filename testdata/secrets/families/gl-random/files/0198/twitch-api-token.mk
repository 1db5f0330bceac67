TWITCH_TOKEN = "u92vjhtivhv7u9kgnix18nc6endwmz"
