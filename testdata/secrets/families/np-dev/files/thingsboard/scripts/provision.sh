curl -X POST https://thingsboard.cloud/api/v1/provision --header Content-Type:application/json --data \
"{"deviceName": "DEVICE_NAME", "provisionDeviceKey": "s2s1gfcuatgbi61n8h5s", "provisionDeviceSecret": "xbzsovaw9ix4qfhi14an"}"
