access_code = "3m03nbqnsGpWLuqIA1id6Vw5DQL05HA0"
