messagebirdToken = "bwhyba716vyau0jf6d3gkn80p"
