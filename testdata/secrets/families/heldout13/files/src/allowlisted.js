const stripeKey = "sk_live_WHKC4JsAo1qNe4VAytylmnQ1"; // pragma: allowlist secret
const vaultToken = "hvs.xuwBRJ3nArD1dtF2zhndcBnCrP1K8DxmGBQMq1goLhEYXlUQwj-KR3dvyF107x77T9PMutHWMFMR3tuUTbe1zghD1uN"; // gitleaks:allow
