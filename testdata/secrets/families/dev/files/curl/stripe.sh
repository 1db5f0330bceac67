curl -u "d2LkV78zLx!t:" https://localhost:9200
curl -L -H "Authorization: sha256~bRLFnzd5@=-.a+/hgdS"
curl -u deployuser: https://nexus.internal/service/rest/v1/status
