curl --fail \
  --upload-file site.tgz \
  -u "docs-bot:zmv5lOaHXSa2vR" \
  https://artifacts.example.com/docs/
