CONFIG['sonar_token'] = "rSsJvk2HDIZyOICWUFCI90fhE38GQrJ1bTYIyOI4"
CONFIG["snyk_token"] = "3b74b9e9-6141-f24b-44d2-f7b128280aa4"
