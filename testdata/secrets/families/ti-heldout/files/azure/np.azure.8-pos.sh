export AZURE_CLIENT_SECRET="test.secret.value_1234~5678-abcd"
