prod_api_key = "tYh5Xj8TPQxjq4i9DoV8gz4FkQ1okTBG"
