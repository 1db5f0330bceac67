CONFLUENT_TOKEN = "bwk163evhr6usvme"
