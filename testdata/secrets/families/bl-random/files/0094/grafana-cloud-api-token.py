grafana-cloud-api-tokenToken = "glc_1N706O0eT2WgAvdCBCFMyPmK2rl5gfa6e4tGWmBW"
