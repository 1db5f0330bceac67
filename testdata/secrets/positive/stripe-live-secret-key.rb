require 'stripe'
Stripe.api_key = 'sk_live_O3NYeIcP1wdBNRXSPjVVUvfs'
