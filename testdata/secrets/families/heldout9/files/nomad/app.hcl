vault {
  enabled = true
  address = "https://vault.corp.internal:8200"
  token   = "s.sFjr0dzC3o4MobEpJSxe2N5e"
}
