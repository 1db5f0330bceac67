ETSY_TOKEN = "uf5iktlyhbzjcsacfzwhpuzg"
