consul-template -vault-addr=https://vault.corp.internal:8200 -vault-token=s.49q3uuBFp2I0mAytsFHChpBn -template "in.tpl:out.conf"
