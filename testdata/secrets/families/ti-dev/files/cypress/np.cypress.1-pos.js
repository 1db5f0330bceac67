$(CYPRESS_BIN) run --record --key a9b8c7d6-e5f4-3210-abcd-ef9876543210
