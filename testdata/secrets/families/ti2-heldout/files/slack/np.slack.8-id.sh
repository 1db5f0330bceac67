curl -X POST https://hooks.slack.com/triggers/TEXAMPLE9/5551234567890/0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d
