LOOKER_TOKEN = "85qtlfy72uex5oszbqtbbjgz"
