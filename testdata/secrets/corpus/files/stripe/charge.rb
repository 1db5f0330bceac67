Stripe.api_key = "sk_live_Zc9ycDxnVKqugjGRBgMcHoaX"
