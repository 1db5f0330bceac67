curl -u "$API_USER:$API_PASSWORD" https://api.example.com/
curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com/
