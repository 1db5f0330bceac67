ICO_TOKEN = "ico-eFMlMPvbcFTSLxQkKwfGeqkfBs4Ffi3N"
