secretToken = "5er8bOfZqfM2oeq3hDavJA76rNicHTp8"
