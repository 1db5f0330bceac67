provider "vault" {
  address = "https://vault.corp.internal:8200"
  token   = "s.tBx22EVyzWAsKpIRuDoqdkkY"
}
# token = "s.xxxxxxxxxxxxxxxxxxxxxxxx"
