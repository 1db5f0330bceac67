curl --header "X-Vault-Token: hvs.hfop87Ei4_WJYiUHlujpbywvM8gLKBeLSslfrC5H19bcHE7qtLhE6JVJiFylOMr3T7kWImsEeBphGyJ4BCOTS2fxuGo" https://vault.corp.internal:8200/v1/secret/data/orders
curl --header "X-Vault-Token: $VAULT_TOKEN" https://vault.corp.internal:8200/v1/sys/health
