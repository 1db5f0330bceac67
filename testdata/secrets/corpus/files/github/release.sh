curl -H "Authorization: token ghp_0BswC20k3Qe8Xr7vUS9pfY6xwBJDuqjuntAK" https://api.github.com/user
