nonMatchingToken := "access_token$staging$icjijf9e33kvswka"
