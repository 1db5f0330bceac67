curl -X POST https://hooks.example.com/deploy \
  -H "X-Deploy-Token: e47345edad4953ea147e67507e0fccf2f4c044d9" \
  -d '{"env":"prod"}'
