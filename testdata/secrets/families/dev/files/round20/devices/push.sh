curl -v -X POST https://eu.thingsboard.cloud/api/v1/l028l4vwhq77ru6j8llh/telemetry -H "Content-Type:application/json" -d '{"humidity":41}'
coap-client -m get "coap://demo.thingsboard.io/api/v1/DXg5vymqtEMq2lmf7LYk/attributes?clientKeys=model"
curl -v -X POST https://thingsboard.cloud/api/v1/$ACCESS_TOKEN/telemetry -d '{"humidity":41}'
