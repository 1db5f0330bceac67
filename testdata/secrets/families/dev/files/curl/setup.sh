#!/usr/bin/env bash
curl --cacert ca.crt -u elastic:P@ssw0rd$1 https://localhost:9200
curl -u ":d2LkV78zLx!t" https://localhost:9200
curl -sw '%{http_code}' -X POST --user  'johns:h0pk1ns~21s' $GItHUB_API_URL/$GIT_COMMIT --data
curl -X POST --user "{acd3c08b-74e8-4f44-a2d0-80694le24f46}":"{ZqL5kVrX1n8tA2}" --header "Accept: application/json" https://gateway.watsonplatform.net/language-translator/api
curl -i -u 'test:test'
  curl -sL --user "$1:$2" "$3" > "$4"
curl -u <user:password> https://test.com/endpoint
curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/
curl -u "${_username}:${_password}"
curl -XGET -i -u "${{ env.ELK_ID }}:${{ build.env.ELK_PASS }}"
curl -X POST --user "$(cat ./login.txt):$(cat ./password.txt)"
