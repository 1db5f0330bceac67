MESSAGE_BIRD_TOKEN = "akoi59evpsyahuo1blct0lyrh"
