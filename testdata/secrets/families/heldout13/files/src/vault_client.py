client = hvac.Client(url="https://vault.corp.internal:8200", token="s.0JeoLvDhuO82lUDmBShzjW38")
