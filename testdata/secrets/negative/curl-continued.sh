curl -sS -X POST https://registry.corp.internal/api/v1/upload \
  -u "$CI_USER:$CI_PASSWORD" \
  -d @payload.json
curl -s https://registry.corp.internal/health
  -u ci-bot:Jd8rKq2mVx5t
