#!/bin/sh
curl -u admin:wPOSumUKYH9IBL https://nexus.corp.internal/service/rest/v1/backup
