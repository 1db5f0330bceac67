// Command gen writes the labeled secrets corpus in testdata/secrets/corpus:
// true positives for every credential family gitleaks documents (plus the
// structured forms: URLs, curl, HTTP headers, PEM variants, Kubernetes
// Secrets, weak IaC passwords), each written from the vendor's published
// token format in the contexts such tokens are committed in, and hard
// negatives (placeholders, documentation examples, translation catalogues,
// hashes, UUIDs, environment lookups). Values are random from a fixed seed,
// so the output is reproducible; LABELS.tsv lists "file<TAB>line<TAB>family"
// for every true positive. Every other line of the corpus is a negative.
//
// Run from the repository root: go run ./testdata/secrets/corpus/gen
package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digit  = "0123456789"
	alnum  = upper + lower + digit
	lalnum = lower + digit
	ualnum = upper + digit
	hex    = "0123456789abcdef"
	b64    = alnum + "+/"
	b64u   = alnum + "-_"
	b32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

var rng = rand.New(rand.NewSource(20260316))

// r returns n random characters of alphabet, avoiding the substrings that
// scanners read as placeholders, so a label never depends on luck.
func r(alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		l := strings.ToLower(s)
		bad := false
		for _, m := range []string{"test", "xxxx", "fake", "your", "example", "1234", "abcd", "qwerty", "dummy", "sample", "todo", "live"} {
			if strings.Contains(l, m) {
				bad = true
			}
		}
		if !bad {
			return s
		}
	}
}

func uuid() string {
	return r(hex, 8) + "-" + r(hex, 4) + "-" + r(hex, 4) + "-" + r(hex, 4) + "-" + r(hex, 12)
}

// A sample is one corpus file; lines marked with a leading "!" are true
// positives of family (the marker is removed).
type sample struct {
	file, family string
	lines        []string
}

var samples []sample

func add(family, file string, lines ...string) {
	samples = append(samples, sample{file, family, lines})
}

// tp marks a true-positive line.
func tp(s string) string { return "!" + s }

func pem(kind string, lines int, alphabet string) []string {
	out := []string{"-----BEGIN " + kind + "-----"}
	for i := 0; i < lines; i++ {
		out = append(out, r(alphabet, 64))
	}
	return append(out, r(alphabet, 28)+"==", "-----END "+kind+"-----")
}

func positives() {
	// ---- cloud, identity, secret stores ----
	add("aws", "aws/credentials.ini", "[default]", tp("aws_access_key_id = AKIA"+r(b32, 16)), tp("aws_secret_access_key = "+r(b64, 40)))
	add("aws", "aws/deploy.py", "import boto3", tp(`client = boto3.client("s3", aws_access_key_id="ASIA`+r(b32, 16)+`")`))
	add("azure-storage", "azure/appsettings.json", "{", tp(`  "Storage": "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=`+r(b64, 86)+`==;EndpointSuffix=core.windows.net"`), "}")
	add("azure-ad-client-secret", "azure/app.env", "AZURE_TENANT_ID="+uuid(), tp("AZURE_CLIENT_SECRET="+r(alnum, 3)+"8Q~"+r(alnum+"_~.-", 34)))
	add("azure-ad-client-secret", "azure/auth.ts", tp(`const clientSecret = "`+r(alnum, 3)+`7Q~`+r(alnum+"_~.", 31)+`";`))
	add("gcp", "gcp/maps.js", tp(`const mapsKey = "AIza`+r(b64u, 35)+`";`))
	add("gcp", "gcp/oauth.json", `{"web": {`, tp(`  "client_secret": "GOCSPX-`+r(b64u, 28)+`",`), `  "client_id": "`+r(digit, 12)+`-`+r(lalnum, 32)+`.apps.googleusercontent.com"}}`)
	add("digitalocean", "do/terraform.tfvars", tp(`do_token = "dop_v1_`+r(hex, 64)+`"`))
	add("alibaba", "alibaba/config.yaml", tp("access_key_id: LTAI"+r(alnum, 20)), tp("alibaba_access_key_secret: "+r(alnum, 30)))
	add("yandex", "yandex/provider.tf", tp(`yandex_api_key = "AQVN`+r(b64u, 36)+`"`))
	add("yandex", "yandex/s3.env", tp("YANDEX_SECRET_KEY=YC"+r(b64u, 38)))
	add("1password", "onepassword/setup.sh", tp("export OP_SECRET_KEY=A3-"+r(ualnum, 6)+"-"+r(ualnum, 6)+"-"+r(ualnum, 5)+"-"+r(ualnum, 5)+"-"+r(ualnum, 5)+"-"+r(ualnum, 5)))
	add("1password", "onepassword/ci.yml", "env:", tp("  OP_SERVICE_ACCOUNT_TOKEN: ops_eyJ"+r(b64, 300)))
	add("age", "age/keys.txt", "# created: 2025-11-02T10:00:00Z", "# public key: age1"+r(strings.ToLower(bech32), 58), tp("AGE-SECRET-KEY-1"+r(bech32, 58)))
	add("vault", "vault/agent.hcl", tp(`token = "hvs.`+r(b64u, 94)+`"`))
	add("vault", "vault/legacy.env", tp("VAULT_TOKEN=s."+r(alnum, 24)))
	add("hashicorp-tf", "terraform/.terraformrc", `credentials "app.terraform.io" {`, tp(`  token = "`+r(alnum, 14)+`.atlasv1.`+r(b64u, 67)+`"`), "}")
	add("doppler", "doppler/.env", tp("DOPPLER_TOKEN=dp.st.prd."+r(alnum, 40)))
	add("doppler", "doppler/run.sh", tp("doppler run --token dp.pt."+r(alnum, 43)+" -- ./server"))
	add("databricks", "databricks/.databrickscfg", "[DEFAULT]", "host = https://adb-"+r(digit, 16)+".azuredatabricks.net", tp("token = dapi"+r(hex, 32)))
	add("cloudflare", "cloudflare/wrangler.env", tp("CLOUDFLARE_API_TOKEN="+r(b64u, 40)))
	add("cloudflare", "cloudflare/global.py", tp(`cloudflare_global_api_key = "`+r(hex, 37)+`"`))
	add("cloudflare", "cloudflare/origin.txt", tp("v1.0-"+r(hex, 24)+"-"+r(hex, 146)))
	add("openshift", "openshift/login.sh", tp("oc login --token=sha256~"+r(b64u, 43)+" --server=https://api.ocp.internal:6443"))
	add("flyio", "flyio/deploy.yml", "env:", tp("  FLY_API_TOKEN: fo1_"+r(b64u, 43)))
	add("heroku", "heroku/release.sh", tp("HEROKU_API_KEY="+uuid()+" heroku releases"))
	add("heroku", "heroku/.netrc.tmpl", tp("HEROKU_TOKEN=HRKU-AA"+r(b64u, 58)))
	add("netlify", "netlify/netlify.env", tp("NETLIFY_AUTH_TOKEN=nfp_"+r(alnum, 36)))
	add("netlify", "netlify/deploy.js", tp(`const netlifyToken = "`+r(b64u, 43)+`";`))
	add("pulumi", "pulumi/ci.sh", tp("export PULUMI_ACCESS_TOKEN=pul-"+r(hex, 40)))
	add("scalingo", "scalingo/.env", tp("SCALINGO_API_TOKEN=tk-us-"+r(b64u, 48)))
	add("defined-networking", "dn/config.yml", tp("api_key: dnkey-"+r(lalnum, 26)+"-"+r(lalnum, 52)))
	add("planetscale", "planetscale/.env", tp("PLANETSCALE_SERVICE_TOKEN=pscale_tkn_"+r(b64u, 43)))
	add("planetscale", "planetscale/db.env", tp("DATABASE_PASSWORD=pscale_pw_"+r(b64u, 43)))
	add("prefect", "prefect/profiles.toml", "[profiles.cloud]", tp(`PREFECT_API_KEY = "pnu_`+r(alnum, 36)+`"`))
	add("harness", "harness/delegate.yaml", tp("  HARNESS_API_KEY: pat."+r(b64u, 22)+"."+r(hex, 24)+"."+r(alnum, 20)))
	add("dynatrace", "dynatrace/oneagent.env", tp("DT_API_TOKEN=dt0c01."+r(ualnum, 24)+"."+r(ualnum, 64)))
	add("clickhouse", "clickhouse/cloud.env", "CLICKHOUSE_KEY_ID="+r(alnum, 20), tp("CLICKHOUSE_KEY_SECRET=4b1d"+r(alnum, 38)))
	add("settlemint", "settlemint/.env", tp("SETTLEMINT_ACCESS_TOKEN=sm_pat_"+r(alnum, 16)))
	add("authress", "authress/client.js", tp(`const accessKey = "sc_`+r(lalnum, 12)+"."+r(lalnum, 5)+".acc_"+r(lalnum, 20)+"."+r(lalnum+"+/", 80)+`";`))

	// ---- source hosting, CI, registries ----
	add("github", "github/release.sh", tp(`curl -H "Authorization: token ghp_`+r(alnum, 36)+`" https://api.github.com/user`))
	add("github", "github/app.yaml", tp("token: ghs_"+r(alnum, 36)))
	add("github", "github/fine.go", "package github", "", tp(`var ghToken = "github_pat_`+r(alnum, 22)+"_"+r(alnum, 59)+`"`))
	add("github", "github/oauth.json", tp(`{"access_token": "gho_`+r(alnum, 36)+`"}`))
	add("gitlab", "gitlab/.gitlab-ci.yml", "variables:", tp("  GITLAB_TOKEN: glpat-"+r(b64u, 20)))
	add("gitlab", "gitlab/runner.toml", tp(`token = "glrt-`+r(b64u, 20)+`"`))
	add("gitlab", "gitlab/trigger.sh", tp("curl -X POST -F token=glptt-"+r(hex, 40)+" -F ref=main https://gitlab.internal/api/v4/projects/7/trigger/pipeline"))
	add("gitlab", "gitlab/feed.txt", tp("https://gitlab.internal/dashboard/projects.atom?feed_token=glft-"+r(b64u, 20)))
	add("gitlab", "gitlab/agent.yaml", tp("agentToken: glagent-"+r(b64u, 50)))
	add("gitlab", "gitlab/register.sh", tp("gitlab-runner register --registration-token GR1348941"+r(b64u, 20)))
	add("gitlab", "gitlab/cookie.txt", tp("Cookie: _gitlab_session="+r(lalnum, 32)))
	add("bitbucket", "bitbucket/pipeline.env", tp("BITBUCKET_APP_PASSWORD=ATBB"+r(alnum, 32)))
	add("bitbucket", "bitbucket/oauth.py", tp(`BITBUCKET_CLIENT_SECRET = "`+r(alnum, 64)+`"`))
	add("atlassian", "atlassian/jira.properties", tp("jira.api.token=ATATT3xFfGF0"+r(b64u, 180)+"="+r(ualnum, 8)))
	add("atlassian", "atlassian/confluence.env", tp("CONFLUENCE_API_TOKEN="+r(alnum, 24)))
	add("sourcegraph", "sourcegraph/src.env", tp("SRC_ACCESS_TOKEN=sgp_"+r(hex, 16)+"_"+r(hex, 40)))
	add("sonar", "sonar/sonar-project.properties", "sonar.projectKey=shop", tp("sonar.token=squ_"+r(hex, 40)))
	add("sonar", "sonar/ci.yml", tp("  SONAR_TOKEN: "+r(hex, 40)))
	add("snyk", "snyk/ci.env", tp("SNYK_TOKEN="+uuid()))
	add("codecov", "codecov/codecov.yml", tp("codecov_token: "+uuid()))
	add("droneci", "drone/.env", tp("DRONE_TOKEN="+r(alnum, 32)))
	add("travisci", "travis/.travis.env", tp("TRAVIS_API_TOKEN="+r(alnum, 22)))
	add("artifactory", "artifactory/gradle.properties", tp("artifactory_password=AKCp"+r(alnum, 69)))
	add("artifactory", "artifactory/download.sh", tp(`curl -H "Authorization: Bearer cmVmdGtu`+r(alnum, 56)+`" -O https://jfrog.internal/artifactory/libs/app.jar`))
	add("jfrog", "jfrog/cli.env", tp("JFROG_ACCESS_TOKEN="+r(alnum, 64)))
	add("clojars", "clojars/deploy.sh", tp("export CLOJARS_PASSWORD=CLOJARS_"+r(lalnum, 60)))
	add("rubygems", "rubygems/credentials", "---", tp(":rubygems_api_key: rubygems_"+r(hex, 48)))
	add("npm", "npm/.npmrc", tp("//registry.npmjs.org/:_authToken=npm_"+r(alnum, 36)))
	add("pypi", "pypi/.pypirc", "[pypi]", "username = __token__", tp("password = pypi-AgEIcHlwaS5vcmc"+r(b64u, 70)))
	add("nuget", "nuget/push.ps1", tp("dotnet nuget push pkg.nupkg --api-key oy2"+r(lalnum, 43)+" --source https://api.nuget.org/v3/index.json"))
	add("nuget", "nuget/NuGet.Config", "<configuration>", "  <packageSourceCredentials>", "    <feed>", `      <add key="Username" value="build" />`,
		tp(`      <add key="ClearTextPassword" value="`+r(alnum, 18)+`" />`), "    </feed>", "  </packageSourceCredentials>", "</configuration>")
	add("dockerhub", "docker/login.sh", tp("echo dckr_pat_"+r(b64u, 27)+" | docker login -u ci --password-stdin"))
	add("readme", "readme/.env", tp("README_API_KEY=rdme_"+r(lalnum, 70)))
	add("postman", "postman/newman.sh", tp("newman run collection.json --postman-api-key PMAK-"+r(hex, 24)+"-"+r(hex, 34)))
	add("octopus", "octopus/deploy.ps1", tp(`$apiKey = "API-`+r(ualnum, 26)+`"`))
	add("infracost", "infracost/ci.yml", tp("  INFRACOST_API_KEY: ico-"+r(alnum, 32)))
	add("typeform", "typeform/.env", tp("TYPEFORM_TOKEN=tfp_"+r(b64u, 59)))

	// ---- monitoring ----
	add("datadog", "datadog/datadog.yaml", tp("api_key: "+r(hex, 32)), "site: datadoghq.eu")
	add("datadog", "datadog/app.env", tp("DD_APP_KEY="+r(hex, 40)))
	add("sentry", "sentry/.sentryclirc", "[auth]", tp("token=sntrys_eyJ"+r(b64u, 120)))
	add("sentry", "sentry/user.env", tp("SENTRY_AUTH_TOKEN=sntryu_"+r(hex, 64)))
	add("grafana", "grafana/provisioning.yaml", tp("  apiKey: glsa_"+r(alnum, 32)+"_"+r(hex, 8)))
	add("grafana", "grafana/cloud.env", tp("GRAFANA_CLOUD_TOKEN=glc_"+r(b64, 80)))
	add("grafana", "grafana/legacy.json", tp(`{"key": "eyJrIjoi`+r(alnum, 80)+`"}`))
	add("newrelic", "newrelic/newrelic.yml", tp("  license_key: "+r(hex, 36)+"NRAL"))
	add("newrelic", "newrelic/api.env", tp("NEW_RELIC_API_KEY=NRAK-"+r(ualnum, 27)))
	add("sumologic", "sumologic/collector.env", tp("SUMO_ACCESS_KEY="+r(alnum, 64)))
	add("meraki", "meraki/sync.py", tp(`MERAKI_DASHBOARD_API_KEY = "`+r(hex, 40)+`"`))
	add("okta", "okta/okta.yaml", "okta:", "  client:", tp("    okta_token: 00"+r(b64u, 40)))
	add("launchdarkly", "launchdarkly/flags.js", tp(`const LAUNCHDARKLY_SDK_KEY = "sdk-`+uuid()+`";`))
	add("mattermost", "mattermost/bot.env", tp("MATTERMOST_TOKEN="+r(lalnum, 26)))
	add("teams", "teams/notify.sh", tp(`curl -H 'Content-Type: application/json' -d '{"text":"deployed"}' https://contoso.webhook.office.com/webhookb2/`+uuid()+"@"+uuid()+"/IncomingWebhook/"+r(lalnum, 32)+"/"+uuid()))
	add("maxmind", "maxmind/GeoIP.conf", "AccountID 123456", tp("LicenseKey "+r(alnum, 6)+"_"+r(alnum, 29)+"_mmk"))
	add("intra42", "intra42/.env", tp("FT_CLIENT_SECRET=s-s4t2ud-"+r(hex, 64)))
	add("privateai", "privateai/client.py", tp(`PRIVATE_AI_API_KEY = "`+r(alnum, 32)+`"`))

	// ---- communication and SaaS ----
	add("slack", "slack/bot.py", tp(`SLACK_BOT_TOKEN = "xoxb-`+r(digit, 12)+"-"+r(digit, 13)+"-"+r(alnum, 24)+`"`))
	add("slack", "slack/user.js", tp(`const token = "xoxp-`+r(digit, 12)+"-"+r(digit, 12)+"-"+r(digit, 13)+"-"+r(hex, 32)+`";`))
	add("slack", "slack/app.env", tp("SLACK_APP_TOKEN=xapp-1-A"+r(ualnum, 10)+"-"+r(digit, 13)+"-"+r(hex, 64)))
	add("slack", "slack/hook.json", tp(`{"url": "https://hooks.slack.com/services/T`+r(ualnum, 8)+"/B"+r(ualnum, 8)+"/"+r(alnum, 24)+`"}`))
	add("slack", "slack/config-token.env", tp("SLACK_CONFIG_TOKEN=xoxe.xoxp-1-"+r(ualnum, 164)))
	add("discord", "discord/bot.py", "import discord", tp(`TOKEN = "MT`+r(b64u, 24)+"."+r(b64u, 6)+"."+r(b64u, 38)+`"`))
	add("discord", "discord/hook.yaml", tp("webhook: https://discord.com/api/webhooks/"+r(digit, 19)+"/"+r(b64u, 68)))
	add("discord", "discord/oauth.env", tp("DISCORD_CLIENT_SECRET="+r(b64u, 32)))
	add("telegram", "telegram/bot.env", tp("TELEGRAM_BOT_TOKEN="+r(digit, 10)+":AA"+r(b64u, 33)))
	add("notion", "notion/.env", tp("NOTION_TOKEN=ntn_"+r(digit, 11)+r(alnum, 35)))
	add("notion", "notion/sync.py", tp(`notion_secret = "secret_`+r(alnum, 43)+`"`))
	add("linear", "linear/.env", tp("LINEAR_API_KEY=lin_api_"+r(alnum, 40)))
	add("asana", "asana/asana.env", tp("ASANA_ACCESS_TOKEN=2/"+r(digit, 16)+"/"+r(digit, 16)+":"+r(hex, 32)))
	add("airtable", "airtable/base.js", tp(`const AIRTABLE_TOKEN = "pat`+r(alnum, 14)+"."+r(hex, 64)+`";`))
	add("algolia", "algolia/index.rb", tp(`ALGOLIA_ADMIN_KEY = "`+r(hex, 32)+`"`))
	add("contentful", "contentful/.env", tp("CONTENTFUL_DELIVERY_TOKEN="+r(b64u, 43)))
	add("messagebird", "messagebird/sms.php", tp(`$messagebird_key = "`+r(alnum, 25)+`";`))
	add("sendbird", "sendbird/chat.env", tp("SENDBIRD_API_TOKEN="+r(hex, 40)))
	add("sendgrid", "sendgrid/Mailer.java", tp(`String key = "SG.`+r(b64u, 22)+"."+r(b64u, 43)+`";`))
	add("sendinblue", "brevo/.env", tp("BREVO_API_KEY=xkeysib-"+r(hex, 64)+"-"+r(alnum, 16)))
	add("mailchimp", "mailchimp/list.py", tp(`MAILCHIMP_KEY = "`+r(hex, 32)+`-us14"`))
	add("mailgun", "mailgun/mail.rb", tp(`Mailgun::Client.new("key-`+r(hex, 32)+`")`))
	add("mailgun", "mailgun/.env", tp("MAILGUN_WEBHOOK_SIGNING_KEY="+r("abcdefgh"+digit, 32)+"-"+r("abcdefgh"+digit, 8)+"-"+r("abcdefgh"+digit, 8)))
	add("twilio", "twilio/sms.env", "TWILIO_ACCOUNT_SID=AC"+r(hex, 32), tp("TWILIO_AUTH_TOKEN="+r(hex, 32)))
	add("twilio", "twilio/keys.php", tp(`$apiKey = "SK`+r(hex, 32)+`";`))
	add("intercom", "intercom/.env", tp("INTERCOM_ACCESS_TOKEN="+r(b64u, 60)))
	add("zendesk", "zendesk/tickets.py", tp(`ZENDESK_API_TOKEN = "`+r(alnum, 40)+`"`))
	add("freshbooks", "freshbooks/.env", tp("FRESHBOOKS_ACCESS_TOKEN="+r(lalnum, 64)))
	add("gitter", "gitter/bot.env", tp("GITTER_TOKEN="+r(hex, 40)))
	add("beamer", "beamer/widget.env", tp("BEAMER_API_KEY=b_"+r(b64u, 44)))
	add("frameio", "frameio/upload.sh", tp("FRAMEIO_TOKEN=fio-u-"+r(b64u, 64)))
	add("squarespace", "squarespace/.env", tp("SQUARESPACE_API_KEY="+uuid()))
	add("twitch", "twitch/bot.env", tp("TWITCH_CLIENT_SECRET="+r(lalnum, 30)))
	add("twitter", "twitter/keys.env", tp("TWITTER_API_SECRET="+r(alnum, 50)), tp("TWITTER_ACCESS_TOKEN="+r(digit, 19)+"-"+r(alnum, 31)))
	add("facebook", "facebook/graph.py", tp(`FACEBOOK_APP_SECRET = "`+r(hex, 32)+`"`))
	add("facebook", "facebook/page.env", tp("FB_PAGE_TOKEN=EAAG"+r(alnum, 150)))
	add("linkedin", "linkedin/oauth.env", tp("LINKEDIN_CLIENT_SECRET="+r(alnum, 16)))
	add("etsy", "etsy/shop.env", tp("ETSY_API_KEY="+r(lalnum, 24)))
	add("finnhub", "finnhub/quotes.py", tp(`FINNHUB_TOKEN = "`+r(lalnum, 20)+`"`))
	add("flickr", "flickr/photos.env", tp("FLICKR_API_KEY="+r(lalnum, 32)))
	add("nytimes", "nytimes/news.env", tp("NYTIMES_API_KEY="+r(alnum, 32)))
	add("rapidapi", "rapidapi/client.js", tp(`headers: {"X-RapidAPI-Key": "`+r(b64u, 50)+`"},`))
	add("dropbox", "dropbox/sync.env", tp("DROPBOX_ACCESS_TOKEN=sl."+r(b64u, 140)))
	add("fastly", "fastly/purge.sh", tp("FASTLY_API_TOKEN="+r(b64u, 32)+" fastly purge --all"))
	add("adafruit", "adafruit/secrets.py", tp(`ADAFRUIT_IO_KEY = "aio_`+r(alnum, 28)+`"`))
	add("adobe", "adobe/.env", tp("ADOBE_CLIENT_SECRET=p8e-"+r(alnum, 32)))
	add("mapbox", "mapbox/upload.sh", tp("MAPBOX_ACCESS_TOKEN=sk.eyJ"+r(b64u, 60)+"."+r(b64u, 22)))
	add("shopify", "shopify/app.ts", tp(`const adminToken = "shpat_`+r(hex, 32)+`";`))
	add("shopify", "shopify/.env", tp("SHOPIFY_API_SECRET=shpss_"+r(hex, 32)))
	add("cohere", "cohere/chat.py", tp(`COHERE_API_KEY = "`+r(alnum, 40)+`"`))
	add("perplexity", "perplexity/.env", tp("PERPLEXITY_API_KEY=pplx-"+r(alnum, 48)))
	add("openai", "openai/chat.py", tp(`client = OpenAI(api_key="sk-proj-`+r(b64u, 74)+"T3BlbkFJ"+r(b64u, 74)+`")`))
	add("anthropic", "anthropic/.env", tp("ANTHROPIC_API_KEY=sk-ant-api03-"+r(b64u, 93)+"AA"))
	add("anthropic", "anthropic/admin.env", tp("ANTHROPIC_ADMIN_KEY=sk-ant-admin01-"+r(b64u, 93)+"AA"))
	add("huggingface", "huggingface/train.py", tp(`login(token="hf_`+r(upper+lower, 34)+`")`))
	add("huggingface", "huggingface/org.env", tp("HF_ORG_TOKEN=api_org_"+r(upper+lower, 34)))

	// ---- payment, commerce, crypto ----
	add("stripe", "stripe/charge.rb", tp(`Stripe.api_key = "sk_live_`+r(alnum, 24)+`"`))
	add("stripe", "stripe/restricted.env", tp("STRIPE_KEY=rk_live_"+r(alnum, 99)))
	add("flutterwave", "flutterwave/.env", tp("FLW_SECRET_KEY=FLWSECK-"+r("abcdefgh"+digit, 32)+"-X"))
	add("flutterwave", "flutterwave/pay.js", tp(`const encryptionKey = "FLWSECK_TEST`+r("abcdefgh"+digit, 12)+`";`))
	add("square", "square/pos.env", tp("SQUARE_ACCESS_TOKEN=EAAA"+r(b64u, 60)))
	add("square", "square/oauth.py", tp(`SQUARE_OAUTH_SECRET = "sq0csp-`+r(b64u, 43)+`"`))
	add("plaid", "plaid/link.env", tp("PLAID_SECRET="+r(hex, 30)))
	add("plaid", "plaid/item.json", tp(`{"access_token": "access-production-`+uuid()+`"}`))
	add("shippo", "shippo/labels.env", tp("SHIPPO_TOKEN=shippo_live_"+r(hex, 40)))
	add("easypost", "easypost/ship.rb", tp(`EasyPost.api_key = "EZAK`+r(alnum, 54)+`"`))
	add("duffel", "duffel/.env", tp("DUFFEL_ACCESS_TOKEN=duffel_live_"+r(b64u, 43)))
	add("lob", "lob/mail.env", tp("LOB_API_KEY=live_"+r(hex, 35)))
	add("gocardless", "gocardless/payments.env", tp("GOCARDLESS_ACCESS_TOKEN=live_"+r(b64u, 40)))
	add("finicity", "finicity/.env", tp("FINICITY_APP_KEY="+r(hex, 32)))
	add("coinbase", "coinbase/trade.env", tp("COINBASE_ACCESS_TOKEN="+r(b64u, 64)))
	add("kraken", "kraken/bot.py", tp(`KRAKEN_PRIVATE_KEY = "`+r(b64, 86)+`=="`))
	add("kucoin", "kucoin/.env", tp("KUCOIN_API_SECRET="+uuid()))
	add("bittrex", "bittrex/.env", tp("BITTREX_API_SECRET="+r(lalnum, 32)))
	add("sidekiq", "sidekiq/.bundle-config", "---", tp(`BUNDLE_ENTERPRISE__CONTRIBSYS__COM: "`+r(hex, 8)+":"+r(hex, 8)+`"`))

	// ---- private keys ----
	add("private-key", "keys/server.key", mark(pem("RSA PRIVATE KEY", 6, b64), 0)...)
	add("private-key", "keys/ec.pem", mark(pem("EC PRIVATE KEY", 2, b64), 0)...)
	add("private-key", "keys/id_ed25519", mark(pem("OPENSSH PRIVATE KEY", 4, b64), 0)...)
	add("private-key", "keys/pkcs8.pem", mark(pem("PRIVATE KEY", 6, b64), 0)...)
	{
		body := pem("RSA PRIVATE KEY", 5, b64)
		add("private-key", "keys/insecurity.ts", "import jwt from 'jsonwebtoken'", "",
			tp("export const privateKey = '"+strings.Join(body, `\r\n`)+"'"), "export const publicKey = 'placeholder'")
	}
	{
		body := pem("PRIVATE KEY", 4, b64)
		add("private-key", "keys/inline.env", tp("JWT_PRIVATE_KEY="+strings.Join(body, " ")))
		add("private-key", "keys/service.json", `{"type": "service_account",`, tp(`"private_key": "`+strings.Join(pem("PRIVATE KEY", 4, b64), `\n`)+`\n",`), `"client_email": "svc@proj.iam.gserviceaccount.com"}`)
	}
	add("private-key", "keys/putty.key", mark(pem("ENCRYPTED PRIVATE KEY", 4, b64), 0)...)
	add("private-key", "keys/signing.pem", mark(pem("ED25519 PRIVATE KEY", 1, b64), 0)...)
	add("pkcs12", "keys/client.p12", tp(string([]byte{0x30, 0x82, 0x0a, 0x1b, 0x02, 0x01, 0x03})+r(alnum, 40)))

	// ---- tokens, JWT ----
	add("jwt", "jwt/request.http", "GET /api/orders HTTP/1.1", tp("Authorization: Bearer "+jwt()))
	add("jwt", "jwt/fixture.b64", tp("token="+b64enc(jwt())))

	// ---- URLs, curl, headers ----
	add("url", "urls/requirements.txt", tp("--index-url https://ci:"+r(alnum, 20)+"@pypi.corp.internal/simple"), "requests==2.32.3")
	add("url", "urls/clone.sh", tp("git clone https://deploy:"+r(alnum, 24)+"@git.corp.internal/shop/api.git"))
	add("url", "urls/ftp.cfg", tp("mirror = ftp://backup:"+r(alnum, 14)+"@files.corp.internal/dumps"))
	add("url", "urls/gitmodules", `[submodule "vendor/lib"]`, tp("	url = git://builder:"+r(alnum, 16)+"@scm.corp.internal/lib.git"))
	add("url", "urls/sidekiq.env", tp("BUNDLE_GEMS__CONTRIBSYS__COM=https://"+r(hex, 8)+":"+r(hex, 8)+"@gems.contribsys.com/"))
	add("url", "urls/smtp.yaml", tp("mailer_url: smtp://alerts:"+r(alnum, 16)+"@smtp.corp.internal:587"))
	add("database", "db/.env", tp("DATABASE_URL=postgres://shop:"+r(alnum, 16)+"@db.internal:5432/shop"))
	add("curl", "curl/backup.sh", "#!/bin/sh", tp("curl -u admin:"+r(alnum, 14)+" https://nexus.corp.internal/service/rest/v1/backup"))
	add("curl", "curl/Makefile", "upload:", tp("	curl --user release:"+r(alnum, 18)+" -T dist.tgz https://repo.corp.internal/upload"))
	add("http-header", "http/api.http", "POST /v1/orders HTTP/1.1", "Host: api.corp.internal", tp("Authorization: Basic "+b64enc("svc-orders:"+r(alnum, 16))))
	add("http-header", "http/curl.sh", tp(`curl -H "Authorization: Bearer `+r(alnum, 40)+`" https://api.corp.internal/v1/me`))
	add("http-header", "http/client.py", tp(`headers = {"X-API-Key": "`+r(alnum, 32)+`"}`))

	// ---- Kubernetes Secrets ----
	add("kubernetes", "k8s/secret.yaml", "apiVersion: v1", "kind: Secret", "metadata:", "  name: shop-db", "type: Opaque", "data:",
		"  username: "+b64enc("shop"), tp("  password: "+b64enc(r(alnum, 18))), tp("  api-token: "+b64enc(r(alnum, 32))))
	add("kubernetes", "k8s/app.yaml", "apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: web", "---", "apiVersion: v1",
		"kind: Secret", "metadata:", "  name: web-env", "stringData:", tp("  SESSION_SECRET: "+r(alnum, 28)))

	// ---- passwords in config and IaC ----
	add("password", "iac/db.tf", `resource "azurerm_mssql_server" "main" {`, `  administrator_login = "sqladmin"`, tp(`  administrator_login_password = "Aa12345678"`), "}")
	add("password", "iac/rds.tf", `resource "aws_db_instance" "app" {`, tp(`  password = "Winter2024!"`), "}")
	add("password", "config/application.yml", "spring:", "  datasource:", tp("    password: Sh0pDb!2025"))
	add("password", "config/settings.py", tp(`DATABASES = {"default": {"PASSWORD": "`+r(alnum, 10)+`!9"}}`))
	add("secret", "config/app.ts", tp(`const jwtSecret = "`+r(alnum, 32)+`";`))
}

func mark(lines []string, i int) []string {
	lines[i] = tp(lines[i])
	return lines
}

func jwt() string {
	head := b64url(`{"alg":"HS256","typ":"JWT"}`)
	body := b64url(`{"sub":"` + r(lalnum, 12) + `","role":"admin","iat":1767225600}`)
	return head + "." + body + "." + r(b64u, 43)
}

func negatives() {
	add("", "negative/placeholders.env",
		"API_KEY=your-api-key-here", "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "GITHUB_TOKEN=${GITHUB_TOKEN}",
		"DATADOG_API_KEY=<datadog-api-key>", "DB_PASSWORD=changeme", "SLACK_BOT_TOKEN=xoxb-your-token", "SECRET_KEY={{ secret_key }}",
		"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "NOTION_TOKEN=secret_<your-integration-secret>",
		"PASSWORD=password", "ADMIN_PASSWORD=12345678", "TOKEN=REPLACE_ME", "OPENAI_API_KEY=sk-...")
	add("", "negative/README.md",
		"# Configuration", "", "Set `DATABASE_URL=postgres://user:password@localhost:5432/app` before starting.",
		"Clone with `git clone https://username:token@github.com/org/repo.git` if you must; prefer SSH.",
		"Use `curl -u $USER:$PASSWORD https://nexus/` or `curl --user admin:admin http://localhost:8081`.",
		"The header looks like `Authorization: Bearer <token>` and `Authorization: Basic ${CREDENTIALS}`.",
		"Your key is shown once, e.g. `glpat-xxxxxxxxxxxxxxxxxxxx`.", "See https://docs.example.com/auth for details.",
		"Tokens start with `ghp_`, `gho_` and `github_pat_` (see GitHub's docs).")
	add("", "negative/env-lookups.py",
		`import os`, `password = os.environ["DB_PASSWORD"]`, `api_key = os.getenv("STRIPE_API_KEY")`, `token = settings.SLACK_TOKEN`,
		`client_secret = config.get("auth", "client_secret")`, `secret_key = get_secret("prod/django/secret_key")`,
		`AUTH_HEADER = "Authorization"`, `PASSWORD_FIELD = "password"`, `if password == confirm_password:`, `    raise ValueError("passwords differ")`)
	add("", "negative/env-lookups.go",
		`package main`, ``, `import (`, `	"net/http"`, `	"os"`, `)`, ``, `var token = os.Getenv("GITHUB_TOKEN")`, ``,
		`func login(req *http.Request, user, password string) error {`, `	req.Header.Set("Authorization", "Bearer "+token)`,
		`	req.SetBasicAuth(user, password)`, `	return nil`, `}`, ``, `const passwordMinLength = 12`, ``, `const apiKeyHeader = "X-API-Key"`)
	add("", "negative/i18n/de_DE.json",
		`{`, `  "LABEL_PASSWORD": "Passwort",`, `  "MANDATORY_PASSWORD": "Bitte gib ein Passwort ein.",`, `  "PASSWORD_HINT": "Mindestens 5 Zeichen",`,
		`  "LABEL_API_KEY": "API-Schlüssel",`, `  "TOKEN_EXPIRED": "Dein Token ist abgelaufen",`, `  "SECRET_QUESTION": "Geheimfrage",`, `}`)
	add("", "negative/i18n/zh_CN.json",
		`{`, `  "LABEL_PASSWORD": "密码",`, `  "MANDATORY_PASSWORD": "请输入密码。",`, `  "PASSWORD_RESET": "重置密码：输入新密码",`,
		`  "INVALID_TOKEN": "令牌无效或已过期",`, `  "SECRET_ANSWER": "安全问题答案",`, `  "API_KEY_LABEL": "API密钥",`, `}`)
	add("", "negative/i18n/ja_JP.json",
		`{`, `  "LABEL_PASSWORD": "パスワード",`, `  "MANDATORY_PASSWORD": "パスワードを入力してください。",`, `  "NEW_PASSWORD_HINT": "新しいパスワード（8文字以上）",`,
		`  "AUTH_TOKEN_INVALID": "認証トークンが無効です",`, `}`)
	add("", "negative/locales/ru.yml",
		"ru:", "  password: Пароль", "  password_confirmation: Подтверждение_пароля", "  secret_token: Секретный_токен", "  api_key: Ключ_API_123")
	add("", "negative/locale/fr.po",
		`msgid "Password"`, `msgstr "Mot de passe"`, ``, `msgid "Your API token"`, `msgstr "Votre jeton d'API"`, ``, `msgid "password_reset_token"`, `msgstr "jeton_de_réinitialisation_2"`)
	add("", "negative/messages_ko.properties",
		`login.password=비밀번호`, `login.password.required=비밀번호를 입력하세요`, `api.token.label=API토큰1`, `secret.key.hint=비밀키를_입력`)
	add("", "negative/hashes.txt",
		"sha256:"+r(hex, 64), "commit "+r(hex, 40), "checksum = "+r(hex, 64), `"integrity": "sha512-`+r(b64, 86)+`=="`,
		"golang.org/x/crypto v0.31.0 h1:"+r(b64, 43)+"=", "md5: "+r(hex, 32), `etag = "`+r(hex, 32)+`"`,
		`"resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz"`, "digest: sha256:"+r(hex, 64))
	add("", "negative/package-lock.json",
		`{`, `  "packages": {`, `    "node_modules/jsonwebtoken": {`, `      "version": "9.0.2",`,
		`      "integrity": "sha512-`+r(b64, 86)+`=="`, `    }`, `  }`, `}`)
	add("", "negative/uuids.yaml",
		"request_id: "+uuid(), "tenant_id: "+uuid(), "subscription: "+uuid(), `traceId: "`+r(hex, 32)+`"`, "object_id: "+uuid(),
		"correlation: "+uuid(), "client_id: "+uuid(), "resource_group_id: "+uuid())
	add("", "negative/ids.go",
		`package ids`, ``, `const buildID = "`+r(hex, 40)+`"`, ``, `var sessionKeyPrefix = "session:"`, ``, `const tokenTypeBearer = "Bearer"`, ``,
		`const passwordResetRoute = "/password/reset"`, ``, `const maxTokenLength = 4096`, ``, `var secretName = "db-credentials"`)
	add("", "negative/examples.tf",
		`variable "db_password" {`, `  type      = string`, `  sensitive = true`, `}`, `resource "aws_db_instance" "app" {`,
		`  password = var.db_password`, `  username = "app"`, `}`, `password = "${random_password.db.result}"`)
	add("", "negative/k8s-configmap.yaml",
		"apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: app-config", "data:", "  LOG_LEVEL: "+b64enc("debug-level-verbose"), "  FEATURE_FLAGS: enabled")
	add("", "negative/k8s-secret-refs.yaml",
		"apiVersion: v1", "kind: Secret", "metadata:", "  name: placeholders", "data:", "  username: "+b64enc("admin"), "  password: "+b64enc("changeme"),
		"  ca.crt: "+b64enc("-----BEGIN CERTIFICATE-----MIIB"), "stringData:", "  token: ${TOKEN}")
	add("", "negative/public-keys.txt",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+r(b64, 43)+" deploy@ci", "-----BEGIN PUBLIC KEY-----", r(b64, 64), "-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----", r(b64, 64), "-----END CERTIFICATE-----")
	add("", "negative/docs-keys.md",
		"Private keys start with `-----BEGIN RSA PRIVATE KEY-----` and must never be committed.",
		"The JWT header `eyJhbGciOiJub25lIn0` means alg none.", "Mapbox public tokens such as pk.eyJ1IjoiZXhhbXBsZSJ9.placeholder are fine in browsers.",
		"Set STRIPE_PUBLISHABLE_KEY=pk_live_"+r(alnum, 24)+" (publishable keys are public).")
	add("", "negative/code-strings.js",
		`const re = /^[A-Za-z0-9]{32}$/;`, `const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";`,
		`const base64Png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";`,
		`const cssHash = "`+r(hex, 20)+`";`, `export const PASSWORD_PATTERN = "^(?=.*[A-Z])(?=.*[0-9]).{8,}$";`, `const tokenKey = "auth_token";`)
}

func b64enc(s string) string {
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []byte
	b := []byte(s)
	for i := 0; i < len(b); i += 3 {
		var n uint32
		k := min(3, len(b)-i)
		for j := 0; j < 3; j++ {
			n <<= 8
			if j < k {
				n |= uint32(b[i+j])
			}
		}
		for j := 0; j < 4; j++ {
			if j <= k {
				out = append(out, a[(n>>(18-6*j))&63])
			} else {
				out = append(out, '=')
			}
		}
	}
	return string(out)
}

func b64url(s string) string {
	return strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(b64enc(s)), "=")
}

func main() {
	root := filepath.Join("testdata", "secrets", "corpus")
	if _, err := os.Stat(root); err != nil {
		fmt.Fprintln(os.Stderr, "run from the repository root")
		os.Exit(2)
	}
	positives()
	negatives()
	for _, d := range []string{"files"} {
		os.RemoveAll(filepath.Join(root, d))
	}
	var labels []string
	seen := map[string]bool{}
	for _, s := range samples {
		if seen[s.file] {
			panic("duplicate corpus file " + s.file)
		}
		seen[s.file] = true
		var b strings.Builder
		for i, l := range s.lines {
			if strings.HasPrefix(l, "!") {
				l = l[1:]
				line := i + 1
				if strings.HasSuffix(s.file, ".p12") {
					line = 0 // a binary key store is a finding about the whole file
				}
				labels = append(labels, fmt.Sprintf("%s\t%d\t%s", s.file, line, s.family))
			}
			b.WriteString(l + "\n")
		}
		p := filepath.Join(root, "files", filepath.FromSlash(s.file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
	}
	sort.Strings(labels)
	head := "# file\tline\tfamily: every true positive of the corpus (generated by gen/main.go; every other line is a negative)\n"
	if err := os.WriteFile(filepath.Join(root, "LABELS.tsv"), []byte(head+strings.Join(labels, "\n")+"\n"), 0o644); err != nil {
		panic(err)
	}
	fmt.Printf("%d files, %d true positives\n", len(samples), len(labels))
}
