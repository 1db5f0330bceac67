vault {
  address = "https://vault.example.com:8200"
}
token = "hvs.tISw5TLvqz01VPRcJtYu9h0H"
