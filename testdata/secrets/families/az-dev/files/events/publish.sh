curl -X POST -H "aeg-sas-key: 9DzR2O6IdgCpiZ1mAFWkQe1hu/IAF6s5mAZEGLA9aJO=" -d @events.json https://acme-topic.westeurope-1.eventgrid.azure.net/api/events
