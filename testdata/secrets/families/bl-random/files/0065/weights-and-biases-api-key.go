wandb_api_keyToken := "0d37eaf864c8a903c2cd5874fdc5260ece1b2295"
