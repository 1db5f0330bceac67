curl -v -X POST http://thingsboard.cloud/api/v1/354u1g321kcqc1oad3w7/telemetry --header Content-Type:application/json --data "{temperature:25}"
curl -v -X POST https://thingsboard.cloud/api/v1/354u1g321kcqc1oad3w7/telemetry --header Content-Type:application/json --data "{temperature:25}"
coap-client -m post coap://coap.thingsboard.cloud/api/v1/354u1g321kcqc1oad3w7/telemetry -t json -e "{temperature:25}"
