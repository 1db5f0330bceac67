export ANTHROPIC_API_KEY=sk-ant-api03-rRJtA3fJXgmVG64bBnqYDROq8_GT0uUC70IXZW_eR_CkHp3FGFJfQyTdsgy7XVzrq6jqhGq5a42m2HJT4tyVuJbsuWJnxAA
curl -s -H "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtdHl4YnV4IiwiaWF0IjoxNzE4NTE2MjE3LCJleHAiOjE4OTM0NTYwMDAsInNjb3BlIjoiYmlsbGluZyJ9.-JjXcRfw-gJJVKB1bksPoBvrkFNMvTgljusHfmr5m6M" https://billing.corp.internal/v2/invoices
curl -s "https://graph.facebook.com/v19.0/me/accounts?access_token=EAABTw7Zl9ZRKgQxxz3kk8kHray31yyeNnYpFqTbsReqYBvjP3twkVszneiG7CNLrCEuzrVOFgpesQ7JIcW7vD7UvcbZZnR5hd8r11BCWcjh3IfEqgY3PxEcQYNtfh55j56Th7hnIcdCZOaEaZU4gil27yznBfj0Qf20zNxJQyMwxcqIUHxfv74p"
curl --user "deploy:KVvEZnpPJdxtCatTR" https://artifacts.corp.internal/upload -T build.tgz
curl --user "deploy:$DEPLOY_PASSWORD" https://artifacts.corp.internal/upload -T build.tgz
