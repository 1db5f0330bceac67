# Stripe's API reference uses this test key in every sample; it is public.
Stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'
# test keys look like sk_test_xxxxxxxxxxxxxxxxxxxxxxxx
STRIPE_KEY=sk_test_short
