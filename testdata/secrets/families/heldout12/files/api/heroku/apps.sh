curl -n https://api.heroku.com/apps \
  -H "Accept: application/vnd.heroku+json; version=3" \
  -H "Authorization: Bearer a37f22c4-afb1-fceb-b874-2f168cc24f02"
