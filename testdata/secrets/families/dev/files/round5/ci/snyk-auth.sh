npm i -g snyk
snyk auth dab01b6f-af9c-8f67-56be-f01385f6d3d6
snyk auth "$SNYK_TOKEN"
