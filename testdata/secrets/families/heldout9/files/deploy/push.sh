#!/bin/sh
sshpass -p 'jWoAJwiEVt24Lr' ssh deploy@web1.corp.internal 'systemctl restart app'
sshpass -p "$SSH_PASS" ssh deploy@web2.corp.internal uptime
mysql -h db.corp.internal -u root -pXNbHsfClVCnPdhvS orders < schema.sql
redis-cli -h cache.corp.internal -a 4PQI06CqA_LDCf9eG!-6 FLUSHALL
PGPASSWORD=mF9rt2Kh0JwmB8RBtR psql -h db.corp.internal -U orders -c 'select 1'
