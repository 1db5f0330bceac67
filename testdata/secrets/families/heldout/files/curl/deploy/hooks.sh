curl --user roger23@gmail.com:pQ9wTxu4Fg https://www.dropbox.com/cli_link?host_id=abcdefg -v
curl -s -v --user "j.smith:dB2yF6@qL9vZm1P#4J" "https://api.contoso.org/user/me"
curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH -H "Content-Type: application/json" -d
curl --user "xxx:yyy"
curl --silent --insecure --user ${f5user}:${f5pass} \
curl http://127.0.0.1:5000/file --user user:pass --digest        # digest auth
