$messagebird_key = "CaJxtagXnbux5uGLA9fdZnIAD";
