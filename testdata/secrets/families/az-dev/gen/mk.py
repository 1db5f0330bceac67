#!/usr/bin/env python3
"""Writes gen/corpus.txt of families/az-dev and families/az-heldout (issue 28,
round 29): Microsoft Azure keys in the formats Microsoft publishes in
microsoft/security-utilities (MIT; src/Microsoft.Security.Utilities.Core:
Azure32ByteIdentifiableKeys, Azure64ByteIdentifiableKeys, SEC101_158 Function,
SEC101_166/167 Search, SEC101_176 Container Registry, SEC101_190 Event Grid,
SEC101_154 Cache for Redis, SEC101_200 CommonAnnotatedSecurityKey,
IdentifiableMetadata's signatures), and the older keys Azure still issues
(88-character storage keys, 32-hex Cognitive Services and OpenAI keys, 56-character
Function keys), in the places people put them: connection strings, the az
CLI, SDK constructors, .env, JSON, YAML, Terraform, curl headers, docker login.
The contexts follow Microsoft's documentation of each service; the values are
drawn here at random (seeded), in each format, and are no one's keys.

Run from the repository root: python3 testdata/secrets/families/az-dev/gen/mk.py,
then go run ./testdata/secrets/heldout/gen testdata/secrets/families/az-dev (and
az-heldout).
"""
import random
import re
import os

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"

rng = random.Random(29)


def draw(alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def k88(sig):  # 64-byte identifiable key: 76, signature, 5, [AQgw]==
    return draw(B64, 76) + sig + draw(B64, 5) + rng.choice("AQgw") + "=="


def k44(sig):  # 32-byte identifiable key: 33, signature, [A-P], 5, =
    return draw(B64, 33) + sig + rng.choice("ABCDEFGHIJKLMNOP") + draw(B64, 5) + "="


def k52(sig):  # Search and Container Registry: 42, signature, [A-D], 5
    return draw(B64, 42) + sig + rng.choice("ABCD") + draw(B64, 5)


def k56(sig):  # Function keys, URL-safe: 44, signature, 5, [AQgw]==
    return draw(URL, 44) + sig + draw(URL, 5) + rng.choice("AQgw") + "=="


def cask(prov):  # common annotated key: 52, JQQJ9, [9D], 1, [A-L], 16, provider, 4
    return (draw(B62, 52) + "JQQJ9" + rng.choice("9D") + draw(B62, 1) + rng.choice("ABCDEFGHIJKL")
            + draw(B62, 16) + prov + draw(B62, 4))


def old88():  # storage account key before identifiable keys: 64 random bytes
    return draw(B64, 85) + rng.choice("AQgw") + "=="


def hex32():
    return draw(HEX, 32)


def fill(text):
    def one(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "k88":
            return k88(arg)
        if kind == "k44":
            return k44(arg)
        if kind == "k52":
            return k52(arg)
        if kind == "k56":
            return k56(arg)
        if kind == "cask":
            return cask(arg)
        if kind == "old88":
            return old88()
        if kind == "hex32":
            return hex32()
        if kind == "sha256":  # 32 bytes in base64: 42, a final character with 2 zero bits, =
            return draw(B64, 42) + rng.choice("AEIMQUYcgkosw048") + "="
        if kind == "url":
            return draw(URL, int(arg))
        raise SystemExit("unknown placeholder " + kind)
    return re.sub(r"\{(\w+)(?: ([^}]*))?\}", one, text)


HEADER = """@@# families/{part} (issue 28, round 29): Microsoft Azure keys, written by
@@# families/az-dev/gen/mk.py (formats from microsoft/security-utilities, contexts
@@# from Microsoft's documentation of each service; values drawn at random, seeded).
@@# Markers as in testdata/secrets/heldout/gen/corpus.txt.
"""

DEV = r"""
@@file deploy/storage.env
@@source Azure Storage connection string (learn.microsoft.com: Configure Azure Storage connection strings), identifiable key (+ASt)
!azure-storage AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmedata;AccountKey={k88 +ASt};EndpointSuffix=core.windows.net
~placeholder AZURE_STORAGE_CONNECTION_STRING_EXAMPLE=DefaultEndpointsProtocol=https;AccountName=<account>;AccountKey=<account-key>;EndpointSuffix=core.windows.net

@@file scripts/upload.sh
@@source az storage blob upload --account-key (az CLI reference)
|#!/bin/sh
!azure-storage az storage blob upload --account-name acmedata --account-key {k88 +ASt} --container-name site --file dist.zip --name dist.zip
~variable az storage blob upload --account-name acmedata --account-key "$STORAGE_KEY" --container-name site --file dist.zip

@@file src/BlobSetup.cs
@@source a C# dictionary initializer of storage settings (older 88-character key)
|var settings = new Dictionary<string, string>
|{
|    { "AccountName", "acmedata" },
!azure-storage     { "AccountKey", "{old88}" },
|};

@@file infra/cosmos.env
@@source Azure Cosmos DB connection string (AccountEndpoint=...;AccountKey=...), identifiable key (ACDb)
!azure-cosmosdb COSMOS_CONNECTION_STRING=AccountEndpoint=https://acme-orders.documents.azure.com:443/;AccountKey={k88 ACDb};
!azure-cosmosdb COSMOS_KEY={k88 ACDb}

@@file batch/run.env
@@source Azure Batch shared key (BATCH_ACCOUNT_KEY, Batch Python quickstart), identifiable key (+ABa)
|BATCH_ACCOUNT_NAME=acmebatch
|BATCH_ACCOUNT_URL=https://acmebatch.westeurope.batch.azure.com
!azure-batch BATCH_ACCOUNT_KEY={k88 +ABa}

@@file api/call_backend.sh
@@source API Management subscription key header (Ocp-Apim-Subscription-Key), identifiable key (APIM)
!azure-apim curl -H "Ocp-Apim-Subscription-Key: {k88 APIM}" https://acme-apim.azure-api.net/orders/v1/list
~variable curl -H "Ocp-Apim-Subscription-Key: $APIM_KEY" https://acme-apim.azure-api.net/orders/v1/list

@@file config/servicebus.json
@@source Service Bus connection string (RootManageSharedAccessKey), identifiable key (+ASb)
|{
!azure-servicebus   "ServiceBusConnection": "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={k44 +ASb}",
!azure-servicebus   "ServiceBusKey": "{k44 +ASb}"
|}

@@file device/device.env
@@source IoT Hub device connection string (HostName=...;DeviceId=...;SharedAccessKey=...), identifiable key (AIoT)
!azure-iot IOTHUB_DEVICE_CONNECTION_STRING=HostName=acme-hub.azure-devices.net;DeviceId=sensor-01;SharedAccessKey={k44 AIoT}

@@file web/cache.py
@@source Azure Cache for Redis connection (redis-py, host:6380, ssl), identifiable key (AzCa)
|import redis
!azure-redis r = redis.StrictRedis(host="acme.redis.cache.windows.net", port=6380, password="{k44 AzCa}", ssl=True)
!azure-redis REDIS_CONN = "acme.redis.cache.windows.net:6380,password={k44 AzCa},ssl=True,abortConnect=False"

@@file events/publish.sh
@@source Event Grid topic key header (aeg-sas-key), identifiable key (AZEG)
!azure-eventgrid curl -X POST -H "aeg-sas-key: {k44 AZEG}" -d @events.json https://acme-topic.westeurope-1.eventgrid.azure.net/api/events

@@file search/query.http
@@source Azure AI Search REST call (api-key header), identifiable query key (AzSe)
|POST https://acme-search.search.windows.net/indexes/hotels/docs/search?api-version=2023-11-01
|Content-Type: application/json
!azure-search api-key: {k52 AzSe}

@@file ci/push.sh
@@source Azure Container Registry admin password given to docker login, identifiable (+ACR)
!azure-acr docker login acmeregistry.azurecr.io -u acmeregistry -p {k52 +ACR}
|docker push acmeregistry.azurecr.io/api:1.4.2

@@file tests/smoke.sh
@@source Azure Functions HTTP trigger URL with its function key (?code=), identifiable (AzFu)
!azure-function curl "https://acme-fn.azurewebsites.net/api/HttpTrigger1?code={k56 AzFu}&name=smoke"

@@file app/openai_client.py
@@source Azure OpenAI client (openai SDK), key in the common annotated format (JQQJ9, ACOG)
|from openai import AzureOpenAI
|client = AzureOpenAI(
!azure-cask     api_key="{cask ACOG}",
|    api_version="2024-12-01-preview",
|    azure_endpoint="https://acme-openai.openai.azure.com/",
|)

@@file speech/.env
@@source Speech service key (SPEECH_KEY, Speech quickstarts), common annotated format
!azure-cask SPEECH_KEY={cask ACOG}
|SPEECH_REGION=westeurope

@@file tools/ado.py
@@source Azure DevOps personal access token, common annotated format (AZDO)
|org = "acme"
!azure-cask token = "{cask AZDO}"

@@file app/settings.env
@@source Azure OpenAI key before the common annotated format (32 hex)
!azure-openai AZURE_OPENAI_API_KEY={hex32}
|AZURE_OPENAI_ENDPOINT=https://acme-openai.openai.azure.com/

@@file package-lock.json
@@source npm lockfile integrity hashes (SHA-512, 88 base64 characters ending ==): not keys
|{
|  "packages": {
|    "node_modules/left-pad": {
~hash       "integrity": "sha512-{old88}"
|    }
|  }
|}

@@file docs/keys.md
@@source prose about the format (security-utilities README), no key
~prose Common annotated keys carry the JQQJ9 signature at offset 52 and a provider signature such as ACOG or AZDO at offset 76.
~placeholder Set `SharedAccessKey=<your key>` and `AccountKey=YOUR_STORAGE_KEY` before running.
"""

HELDOUT = r"""
@@file config/appsettings.json
@@source storageKey in appsettings.json (ASP.NET Core configuration), identifiable (+ASt)
|{
|  "Storage": {
|    "AccountName": "acmefiles",
!azure-storage     "AccountKey": "{k88 +ASt}"
|  }
|}

@@file infra/main.tf
@@source Terraform azurerm_function_app storage_account_access_key
|resource "azurerm_function_app" "api" {
|  name                       = "acme-api"
!azure-storage   storage_account_access_key = "{k88 +ASt}"
|}

@@file scripts/Cleanup.ps1
@@source a command-line flag carrying an older storage key
|AzureStorageCleanup.exe -storagename acmebackup `
!azure-storage     -storagekey {old88} `
|    -container sqlbackup

@@file src/orders/db.py
@@source CosmosClient(url, credential=key) (azure-cosmos quickstart), identifiable (ACDb)
|from azure.cosmos import CosmosClient
!azure-cosmosdb client = CosmosClient("https://acme-orders.documents.azure.com:443/", credential="{k88 ACDb}")

@@file ops/cosmos-keys.json
@@source az cosmosdb keys list output
|{
!azure-cosmosdb   "primaryMasterKey": "{k88 ACDb}",
!azure-cosmosdb   "primaryReadonlyMasterKey": "{k88 ACDb}"
|}

@@file batch/pool.py
@@source SharedKeyCredentials(account, key) (azure-batch Python), identifiable (+ABa)
|from azure.batch.batch_auth import SharedKeyCredentials
!azure-batch creds = SharedKeyCredentials("acmebatch", "{k88 +ABa}")

@@file gateway/apim.yaml
@@source an APIM subscription key in a client's YAML settings, identifiable (APIM)
|backend:
|  url: https://acme-apim.azure-api.net/billing
!azure-apim   subscriptionKey: {k88 APIM}

@@file events/hub.env
@@source Event Hubs and Relay keys in .env, identifiable (+AEh, +ARm)
!azure-servicebus EVENTHUB_CONNECTION_STRING="Endpoint=sb://acme-events.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={k44 +AEh};EntityPath=orders"
!azure-servicebus RELAY_KEY={k44 +ARm}

@@file iot/provision.json
@@source device provisioning enrollment (az iot dps), identifiable (AIoT)
|{
|  "attestation": { "type": "symmetricKey", "symmetricKey": {
!azure-iot     "primaryKey": "{k44 AIoT}"
|  } }
|}

@@file cache/settings.yaml
@@source Cache for Redis access key in YAML, identifiable (AzCa)
|redis:
|  host: acme.redis.cache.windows.net
|  port: 6380
!azure-redis   accessKey: {k44 AzCa}

@@file events/grid.env
@@source Event Grid topic access key in .env, identifiable (AZEG)
!azure-eventgrid EVENTGRID_TOPIC_KEY={k44 AZEG}

@@file search/client.cs
@@source SearchClient with AzureKeyCredential (Azure.Search.Documents), identifiable (AzSe)
!azure-search var client = new SearchClient(new Uri(endpoint), "hotels", new AzureKeyCredential("{k52 AzSe}"));

@@file .github/workflows/build.yml
@@source docker/login-action with an ACR admin password, identifiable (+ACR)
|      - uses: docker/login-action@v3
|        with:
|          registry: acmeregistry.azurecr.io
|          username: acmeregistry
!azure-acr           password: {k52 +ACR}

@@file tests/func_test.http
@@source x-functions-key header (Azure Functions HTTP trigger), identifiable (AzFu)
|GET https://acme-fn.azurewebsites.net/api/report
!azure-function x-functions-key: {k56 AzFu}

@@file vision/app.py
@@source Computer Vision key in Python (common annotated format, ACOG)
!azure-cask VISION_KEY = "{cask ACOG}"
|VISION_ENDPOINT = "https://acme-vision.cognitiveservices.azure.com/"

@@file src/transcribe.cpp
@@source an Azure OpenAI key in C++ (common annotated format)
!azure-cask     std::string apiKey = "{cask ACOG}";

@@file realtime/pubsub.js
@@source Web PubSub connection string (AccessKey=...;Version=1.0), common annotated format (AWPS)
!azure-cask const connectionString = "Endpoint=https://acme-chat.webpubsub.azure.com;AccessKey={cask AWPS};Version=1.0;";

@@file ci/ado.env
@@source Azure DevOps PAT in .env (common annotated format, AZDO)
!azure-cask AZURE_DEVOPS_PAT={cask AZDO}

@@file local.settings.json
@@source Azure Functions local settings with an Azure OpenAI key (32 hex)
|{
|  "IsEncrypted": false,
|  "Values": {
!azure-openai     "AZURE_OPENAI_KEY": "{hex32}",
|    "AZURE_OPENAI_ENDPOINT": "https://acme-openai.openai.azure.com/"
|  }
|}

@@file web/index.html
@@source Subresource Integrity hashes (SHA-384/SHA-256 base64): not keys
~hash <script src="https://cdn.example.net/lib.js" integrity="sha256-{sha256}" crossorigin="anonymous"></script>
~hash <link rel="stylesheet" href="/site.css" integrity="sha512-{old88}">

@@file docs/setup.md
@@source documentation placeholders
~placeholder Replace `<storage-account-key>` in `AccountKey=<storage-account-key>` with the key from the portal.
~variable COSMOS_KEY=${{ secrets.COSMOS_KEY }}
"""

here = os.path.dirname(os.path.abspath(__file__))
fam = os.path.dirname(os.path.dirname(here))
for part, body in (("az-dev", DEV), ("az-heldout", HELDOUT)):
    with open(os.path.join(fam, part, "gen", "corpus.txt"), "w") as f:
        f.write(HEADER.format(part=part) + fill(body))
