#!/bin/bash
curl -k -v \
    --proxy-user mirror:t!fm1NMqPLE51P \
    --proxy https://proxy.corp.internal:8080 \
    https://mirror.corp.internal/index.json
curl --digest -u admin:KvKmch19A2gF9sZ2 https://nas.corp.internal/api/status
wget --http-password=bGSXHvNu0TdJmjk --user=backup https://files.corp.internal/db.tar.gz
wget --user=admin --ask-password https://files.corp.internal/db.tar.gz
curl -u admin: https://localhost
