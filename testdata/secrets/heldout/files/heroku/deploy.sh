curl https://kolkrabbi.heroku.com/apps/98fc74a8-ff56-4a21-85f6-7a1fcac895c9/github/push \
  -H "Authorization: Bearer $HEROKU_API_KEY"
