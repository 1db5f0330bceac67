curl -sS -X POST https://registry.corp.internal/api/v1/upload \
  -H 'Content-Type: application/json' \
  -u ci-bot:Jd8rKq2mVx5t \
  -d @payload.json
