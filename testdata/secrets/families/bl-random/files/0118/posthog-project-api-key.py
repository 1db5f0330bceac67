posthogToken = "phc_CcmWiqqp8R67zkQsrp7-MjK-HUOS5bjkOCimTZCC8_g6"
