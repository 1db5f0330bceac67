# https://hooks.slack.com/services/TXXXXX/BXXXXX/XXXXXXXXXX

HOOK=https://hooks.slack.com/services/T11111AA/BAAAA111A/qKirRWalryBGqKirRWalryBG
curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' "$HOOK"
