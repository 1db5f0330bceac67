curl --request GET \
  --url "https://api.snyk.io/rest/self?version=2024-06-10" \
  --header "Authorization: token 9bd02bc6-7fe1-f47f-d38d-c8ed000d14b6"
curl --header "Authorization: token API_TOKEN" https://api.snyk.io/rest/self
