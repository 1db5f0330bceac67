messagebird_key = "z9mDSt4spXMqykDGYzReONZl7"
