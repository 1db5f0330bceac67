curl -H 'Authorization: Basic YnJvd3Nlcjo='
