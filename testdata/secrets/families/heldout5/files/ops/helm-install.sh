helm upgrade --install alerts charts/alerts \
  --set slack.botToken=xoxb-870773399359-8154017375708-QFqni1SYOBWg4GADuYfjt5kL \
  --set sumologic.accessId=sueS2vHKo4GRkL \
  --set sumologic.accessKey=geE5EhD0lzmH35bNKnsoCcWtqa4tznnYd6Tokz2qF7TKma7bPFQFKfoQSXfWwnQm
