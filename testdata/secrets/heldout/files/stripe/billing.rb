require "stripe"
Stripe.api_key = "sk_live_dhhfUUyfrAace5dBAZ10JrAD"
