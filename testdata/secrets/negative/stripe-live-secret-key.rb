Stripe.api_key = 'sk_test_fZqfM2oeq3hDavJA76rNicHT'
# live keys look like sk_live_xxxxxxxxxxxxxxxxxxxxxxxx
