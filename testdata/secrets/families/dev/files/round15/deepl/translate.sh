curl -X POST https://api-free.deepl.com/v2/translate -H "Authorization: DeepL-Auth-Key 68ea38b1-272e-41df-354d-b0ae273e2a36:fx" -d "text=Hallo"
curl -X POST https://intranet.corp.internal/login -H "Authorization: Negotiate"
