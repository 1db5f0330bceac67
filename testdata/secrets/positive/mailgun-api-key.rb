RestClient.post "https://api:key-8e3c694a73424b492e47cfa9c13f4838@api.mailgun.net/v3/mg.acme.io/messages"
