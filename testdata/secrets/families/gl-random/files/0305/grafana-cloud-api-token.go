grafana-cloud-api-tokenToken := "glc_9tbfifa0j55cghsczis243vhx4fn0dim"
