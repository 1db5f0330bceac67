curl https://api.anthropic.com/v1/messages \
  -H "x-api-key: sk-ant-api03-oHn_v5XDN67yWY-HYgn0r0Nw5RLYV7IZIZxGMxDL3zCZI5WVSWc9KEkA7GkSHeoE21A1KQY_rX74QYzUfdQmtOJJeRxypAA" \
  -H "anthropic-version: 2023-06-01"
