curl -X POST "https://api.newrelic.com/v2/applications/380836898/deployments.json" \
     -H "X-Api-Key:NRRA-e270623d47659ff6a48ac5bde6bba223bef47c8c26" \
     -i \
     -H "Content-Type: application/json" \
     -d "{ \"deployment\": { \"revision\": \"${rev}\" }}"
