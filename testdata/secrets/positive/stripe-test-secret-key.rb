require 'stripe'
Stripe.api_key = 'sk_test_fZqfM2oeq3hDavJA76rNicHT'
STRIPE_RESTRICTED=rk_test_p8hkqdlm7tOtHWnsCGRlrwZb
