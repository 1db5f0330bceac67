SESSION_TOKEN=eyJhbGciOiJub25lIhMidHlwIjoiSldUIn0.eyJzdWIiOiJzdmMtcmVwb3J0cyIsInJvbGUiOiJzZXJ2aWNlIiwiaWF0IjoxNzY3MjI1NjAwfQ.Qm9Zt3x8K2pLr5VwNs7Hc1Fd4Jg6Yb0Ae9Xu2Wi8Tk
curl -H "X-Acme-ApiKey: $ACME_API_KEY" https://api.acme.internal/v1
curl -H "X-Cache-Key: homepage-v2" https://cdn.corp.internal/
