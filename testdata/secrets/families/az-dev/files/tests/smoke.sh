curl "https://acme-fn.azurewebsites.net/api/HttpTrigger1?code=MJ7QuSjZ4HnhnR_5VwThw0E5Dqv_wD4MrnxJFjn1J6C6AzFu_bToaA==&name=smoke"
