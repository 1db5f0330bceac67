grafana-cloud-api-tokenToken = "glc_hi2wqi36p1xuj4i5av05y53nri2dfddk"
