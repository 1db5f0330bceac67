mongo_creds = '9jXfyPe7NDksXDxCNvFEiicDRwcN3x0W'
