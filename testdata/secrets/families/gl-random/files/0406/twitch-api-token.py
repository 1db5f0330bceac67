twitchToken = "xy7khh91am931724p8x96jn3dhutxj"
