provider "sumologic" {
  access_id   = "suPe8RXS4btggF"
  access_key  = "2s1QT52yodHRAlTUcy2vlmNtwjAasvNQIN1zizUtiXqKDpDV4sSRnN3qoryqxvly"
  environment = "us2"
}
