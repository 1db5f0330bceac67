vault {
  address = "https://vault.example.com:8200"
  token   = "hvs.CAESIEN0V7qfbwj4Xf6i-cj0aClOtXosGtYa7lOfIKLzCktSDZymnzDfpCzPeqbtIqmx_uCUonIEiQ9mMOdGjWHtNZT"
}
# batch token for the CI job: hvb.AAAAAQXQfkjZA1rukOY5iYzoMsFQUH-NLftBLG8mV1PmvciFend6H4M0-6nkpAdxK5WBsPjkbL3FPISilMHV0MSpAu9XuiXkvyXCVSPTqAHydlX_UsFsf-qfJgmcwoj2o1oGiwymb2
