curl https://rest.messagebird.com/balance -H 'Authorization: AccessKey h4eNjiGUjmoHjRs0FC1UyaRgX'
