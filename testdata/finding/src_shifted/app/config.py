# -*- coding: utf-8 -*-
# Reformatted copy.

# Example settings for scand's finding fixtures. Every value is fake.
DEBUG  =  True
AWS_ACCESS_KEY_ID = "AKIAFAKEFAKEFAKEFAKE"  # scand:ignore aws-access-key-id -- documented sample
    DB_PASSWORD = "fake-password-1"
# scand:ignore generic-password -- local dev only
CACHE_PASSWORD = "fake-password-2"
API_TOKEN = "fake-token"  # scand:ignore other-rule
BACKUP_PASSWORD = "fake-password-3"
    DB_PASSWORD = "fake-password-1"
