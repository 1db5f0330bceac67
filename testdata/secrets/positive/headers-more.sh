SESSION_TOKEN=eyJhbGciOiJIUzI1NiITInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtcmVwb3J0cyIsInJvbGUiOiJzZXJ2aWNlIiwiaWF0IjoxNzY3MjI1NjAwfQ.Qm9Zt3x8K2pLr5VwNs7Hc1Fd4Jg6Yb0Ae9Xu2Wi8Tk
curl -H "Authorization: Basic c3ZjLWV4cG9ydDpw5HNzVzByZDlLeDc=" https://export.corp.internal/run
curl -H "X-Acme-ApiKey: 8f3kQ2x9Lm4vT7pZ1wR6" https://api.acme.internal/v1
