import random, os, base64, uuid, json
import sys
OUT = sys.argv[1]
R = random.Random(20261203)
A = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
H = '0123456789abcdef'
def s(n, al=A): return ''.join(R.choice(al) for _ in range(n))
def u(): return str(uuid.UUID(int=R.getrandbits(128), version=4))
files = {}   # path -> text
labels = []  # (path, line, family)
def add(path, text, fam, lines):
    files[path] = text
    for l in lines: labels.append((path, l, fam))
# 1 snyk
add('ci/snyk.yml', f"name: security\non: push\njobs:\n  snyk:\n    runs-on: ubuntu-latest\n    env:\n      SNYK_TOKEN: {u()}\n    steps:\n      - run: snyk test\n", 'snyk', [7])
add('tools/snyk_settings.json', '{\n  "api": "%s",\n  "org": "payments-team"\n}\n' % u(), 'snyk', [2])
# 2 sonar
add('sonar-project.properties', f"sonar.projectKey=billing-api\nsonar.host.url=https://sonar.internal.example.net\nsonar.login=squ_{s(40,H)}\n", 'sonarqube', [3])
add('build/Jenkinsfile', f"pipeline {{\n  environment {{\n    SONAR_TOKEN = 'sqp_{s(40,H)}'\n  }}\n  stages {{ stage('scan') {{ steps {{ sh 'sonar-scanner' }} }} }}\n}}\n", 'sonarqube', [3])
add('scripts/sonar.sh', f"#!/bin/sh\nmvn sonar:sonar -Dsonar.token={s(40,H)} -Dsonar.projectKey=shop\n", 'sonarqube', [2])
# 3 sourcegraph
add('.envrc', f"export SRC_ENDPOINT=https://sourcegraph.example.org\nexport SRC_ACCESS_TOKEN=sgp_{s(16,H)}_{s(40,H)}\n", 'sourcegraph', [2])
add('docs/sg-cli.md', f"# Using src\n\n```sh\nsrc login https://sourcegraph.com --token=sgp_{s(40,H)}\n```\n", 'sourcegraph', [4])
# 4 sidekiq
add('Gemfile', f"source 'https://rubygems.org'\nsource 'https://{s(8,H)}:{s(8,H)}@gems.contribsys.com/' do\n  gem 'sidekiq-pro'\nend\n", 'sidekiq', [2])
add('.bundle/config', f'---\nBUNDLE_ENTERPRISE__CONTRIBSYS__COM: "{s(8,H)}:{s(8,H)}"\n', 'sidekiq', [2])
# 5 slack
add('bot/config.py', f"SLACK_BOT_TOKEN = 'xoxb-{R.randint(10**11,10**12-1)}-{R.randint(10**12,10**13-1)}-{s(24)}'\nSLACK_USER_TOKEN = 'xoxp-{R.randint(10**11,10**12-1)}-{R.randint(10**11,10**12-1)}-{R.randint(10**12,10**13-1)}-{s(32,H)}'\n", 'slack', [1,2])
add('deploy/notify.sh', f"#!/bin/bash\ncurl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' https://hooks.slack.com/services/T{s(8,'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/B{s(10,'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/{s(24)}\n", 'slack-webhook', [2])
add('app/settings.yaml', f"slack:\n  legacy_token: xoxs-{R.randint(10**9,10**10-1)}-{R.randint(10**11,10**12-1)}-{R.randint(10**11,10**12-1)}-{s(64,H)}\n", 'slack', [2])
add('.github/workflows/release.yml', f"jobs:\n  notify:\n    steps:\n      - uses: slackapi/slack-github-action@v1\n        with:\n          webhook: https://hooks.slack.com/workflows/T{s(9,'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/A{s(10,'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/{R.randint(10**17,10**18-1)}/{s(24)}\n", 'slack-webhook', [6])
add('src/slack.js', f"const client = new WebClient('xoxe.xoxp-1-{s(166)}');\n", 'slack', [1])
# 6 curl
add('scripts/backup.sh', f"#!/bin/bash\ncurl -s -u backup:{s(14)} https://nexus.corp.example.com/repository/backups/db.tar.gz -o db.tar.gz\n", 'curl-user', [2])
add('README.md', f"## API\n\n```\ncurl https://api.vendor.example/v2/orders \\\n  -H \"Authorization: Bearer {s(40)}\"\n```\n", 'curl-header', [5])
add('ops/health.txt', f"curl --user 'monitor:{s(16)}' https://grafana.example.net/api/health\n", 'curl-user', [1])
add('ops/api.sh', f"curl -H 'X-API-Key: {s(32)}' https://api.example.io/v1/things\n", 'curl-header', [1])
# 7 k8s secret (non yaml names)
add('k8s/db-secret.json', '{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": {"name": "db"},\n  "type": "Opaque",\n  "data": {\n    "password": "%s"\n  }\n}\n' % base64.b64encode(s(18).encode()).decode(), 'k8s-secret', [7])
add('helm/templates/secret.tpl', f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{{{ .Release.Name }}}}-api\ntype: Opaque\nstringData:\n  API_KEY: {s(32)}\n", 'k8s-secret', [7])
add('manifests/secret.txt', f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: registry\ndata:\n  token: {base64.b64encode(s(30).encode()).decode()}\n", 'k8s-secret', [6])
# 8 nuget
add('NuGet.Config', f'<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSourceCredentials>\n    <internal>\n      <add key="Username" value="build" />\n      <add key="ClearTextPassword" value="{s(16)}" />\n    </internal>\n  </packageSourceCredentials>\n</configuration>\n', 'nuget', [6])
# 9 sumo
add('collector/sumo.conf', f"accessid = su{s(12)}\naccesskey = {s(64)}\n", 'sumo', [1,2])
# 10 jwt variants
def b64u(b): return base64.urlsafe_b64encode(b).decode().rstrip('=')
jwt = b64u(b'{"alg":"HS256","typ":"JWT"}')+'.'+b64u(json.dumps({"sub":"svc-ingest","iat":1764720000,"role":"admin"}).encode())+'.'+b64u(bytes(R.getrandbits(8) for _ in range(32)))
add('tests/fixtures/auth.ts', f"export const ADMIN_TOKEN = '{jwt}';\n", 'jwt', [1])
add('config/app.env', f"AUTH_TOKEN={base64.b64encode(jwt.encode()).decode()}\n", 'jwt-b64', [1])
# 11 facebook
add('social/fb.php', f"<?php\n$fb = new Facebook\\Facebook([\n  'app_id' => '{R.randint(10**14,10**15-1)}',\n  'app_secret' => '{s(32,H)}',\n  'default_graph_version' => 'v19.0',\n]);\n", 'facebook', [4])
add('social/token.rb', f"FB_PAGE_TOKEN = 'EAA{s(4)}ZC{s(150)}'\n", 'facebook', [1])
# 12 anthropic admin
add('.env.production', f"ANTHROPIC_ADMIN_KEY=sk-ant-admin01-{s(93, A+'-_')}AA\n", 'anthropic-admin', [1])
# 13 vault
add('vault/agent.hcl', f'vault {{\n  address = "https://vault.example.com:8200"\n}}\ntoken = "hvs.{s(24)}"\n', 'vault', [4])
add('ci/vault.env', f"VAULT_TOKEN=hvs.CAESI{s(90, A+'-_')}\n", 'vault', [1])
add('scripts/vault_legacy.sh', f"export VAULT_TOKEN=s.{s(24)}\nvault kv get secret/app\n", 'vault', [1])
# 14 hubspot
add('crm/hubspot.py', f"import hubspot\nclient = hubspot.Client.create(access_token='pat-na1-{u()}')\n", 'hubspot', [2])
add('crm/legacy.js', f"const hubspot = require('hubspot');\nconst api = new hubspot({{ apiKey: '{u()}' }});\n", 'hubspot', [2])
# 15 heroku
add('Procfile.env', f"HEROKU_API_KEY=HRKU-AA{s(58, A+'-_')}\n", 'heroku', [1])
add('deploy/heroku.yml', f"deploy:\n  provider: heroku\n  api_key: {u()}\n  app: shop-staging\n", 'heroku', [3])
# 16 messagebird
add('sms/send.go', f'package sms\n\nimport messagebird "github.com/messagebird/go-rest-api/v9"\n\nvar client = messagebird.New("{s(25)}")\n', 'messagebird', [5])
# 17 bedrock
raw = b'BedrockAPIKey-' + s(4).encode() + b'-at-' + str(R.randint(10**11,10**12-1)).encode() + b':' + s(40, A+'/+').encode()
add('ai/bedrock.env', f"AWS_BEARER_TOKEN_BEDROCK=ABSK{base64.b64encode(raw).decode()}\n", 'bedrock', [1])
# 18 ethereum
add('test/deploy.test.js', f"const {{ ethers }} = require('ethers');\ndescribe('deploy', () => {{\n  const wallet = new ethers.Wallet('0x{s(64,H)}');\n}});\n", 'ethereum', [3])
add('hardhat.config.ts', f"export default {{\n  networks: {{\n    sepolia: {{\n      url: 'https://rpc.sepolia.org',\n      accounts: ['{s(64,H)}'],\n    }},\n  }},\n}};\n", 'ethereum', [5])
# FP files: by class
add('fp/gcp-public.html', f'<script src="https://maps.googleapis.com/maps/api/js?key=AIza{s(35, A+"-_")}&callback=initMap"></script>\n', None, [])
add('fp/firebase-config.js', f"const firebaseConfig = {{\n  apiKey: 'AIza{s(35, A+'-_')}',\n  authDomain: 'shop-42.firebaseapp.com',\n  projectId: 'shop-42',\n}};\n", None, [])
add('fp/sentry.js', f"Sentry.init({{ dsn: 'https://{s(32,H)}@o{R.randint(100000,999999)}.ingest.sentry.io/{R.randint(1000000,9999999)}' }});\n", None, [])
add('fp/secrets.enc.yaml', f"db_password: ENC[AES256_GCM,data:{s(24)},iv:{s(43)}=,tag:{s(22)}==,type:str]\nsops:\n  version: 3.8.1\n", None, [])
add('fp/db.py', "def connect(host, user, password=None):\n    return psycopg2.connect(host=host, user=user, password=password)\n", None, [])
add('fp/oauth.md', "The client sends:\n\n    Authorization: Bearer mF_9.B5f-4.1JqM\n", None, [])
add('fp/telegram_doc.md', "Set `TELEGRAM_BOT_TOKEN` to the token BotFather gives you, e.g. `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`.\n", None, [])
add('fp/nuget.config', '<configuration>\n  <packageSourceCredentials>\n    <feed>\n      <add key="Username" value="%USER%" />\n      <add key="ClearTextPassword" value="%NUGET_PAT%" />\n    </feed>\n  </packageSourceCredentials>\n</configuration>\n', None, [])
add('fp/k8s-secret-ref.yaml', "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - env:\n            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: db\n                  key: password\n", None, [])
add('fp/vault-policy.hcl', 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n', None, [])
add('fp/curl-env.sh', 'curl -u "$API_USER:$API_PASSWORD" https://api.example.com/\ncurl -H "Authorization: Bearer ${TOKEN}" https://api.example.com/\n', None, [])
add('fp/eth-address.js', f"const CONTRACT = '0x{s(40,H)}';\nconst TX = '0x{s(64,H)}'; // transaction hash\n", None, [])
for p,t in files.items():
    os.makedirs(os.path.dirname(OUT+'/files/'+p) or OUT+'/files', exist_ok=True)
    open(OUT+'/files/'+p,'w').write(t)
with open(OUT+'/LABELS.tsv','w') as f:
    f.write('# file\tline\tfamily\tsource\n')
    for p,l,fam in labels: f.write(f'{p}\t{l}\t{fam}\thand-written (heldout14, round 30)\n')
