SCALINGO_TOKEN = "tk-us-g66-vz4oua4t-e39y56qx3efh15ebfzrqvbwmmr2qll7a52j"
