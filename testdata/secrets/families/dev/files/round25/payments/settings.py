PAYMENTS = {
    "braintree": "access_token$production$a5vm1t7raz0ctxgu$bb76935a74244c136b5092bd1e31bb48",
    "braintree_client": "sandbox_popk48xe_cqanmyyhrgsml08l",
    "x_api_key": "AQEyhmfxKtf5.TD97YFkEWlQYfbGqdDolgxpUcCjSBVmaw4mPuVAKkRHsg4606jIxN9aWra6_QMPr",
    "adyen_client_key": "live_GIAV70PJPHAJ6AWCSZTUQ76ZOHZTACZ3",
}
LOG_CHANNEL = "production_settings_loggingverbosity"
BRAINTREE_ACCESS_TOKEN = "access_token$sandbox$your_merchant_id$your_token"
