path "secret/data/app/*" {
  capabilities = ["read"]
}
