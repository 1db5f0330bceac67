#!/bin/sh
# Log the deploy job in to Vault with its AppRole.
export VAULT_ADDR=https://vault.internal:8200
VAULT_TOKEN=$(vault write -field=token auth/approle/login role_id=998a8a40-23e0-4239-a88e-4b66855795ad secret_id=fb32e028-56f3-48b0-b955-c1693edc3c34)
export VAULT_TOKEN
