NEW-RELIC_TOKEN = "NRAK-j6ol1blnepl8cw8b77utxov6cjc"
