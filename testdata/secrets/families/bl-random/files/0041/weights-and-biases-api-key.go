wandb_api_keyToken := "44c5bde8a954e409258ddaf3688a05563fa0ee05"
