JWT_TOKEN = "eyRQVQXrwNMw7vzsAR0.eyxM9_0p8xcssR4hjugun.rp\TJFtkQKO"
