import requests
token = 'sqco_FbT1v5HrMX6qyKUkaoLQdYOniAVhbEccERraQABuhBayDOkyCZTa8TDQFRp'
requests.post("https://sonarcloud.io/api/ce/submit", auth=(token, ""))
