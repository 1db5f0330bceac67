curl -u "susCA7S88Pw5Dj:8QZBhFjC6yRY3wytdpf0VwbNvomPR9xB8vzrvbaEyK4VmkulY25AAsQaio0DOEid" -X GET https://api.sumologic.com/api/v1/collectors
