curl "https://api.anthropic.com/v1/organizations/usage_report/messages?starting_at=2025-01-01T00:00:00Z" \
  --header "x-api-key: sk-ant-admin01-9KhRr6bcB_2PVzIjDy_vtj0jGwdzSfoxZyFL4I9r6OBi1AQej3uanxrzFbOf1KVTIlzbl2r6CNOTNxOrvF-xb4nDsjudhAA" \
  --header "anthropic-version: 2023-06-01"
