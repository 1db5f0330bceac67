export const shopify = { token: "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" };
