variable "corp_okta_api_token" {
  default = "004EWTpRQT_HJtG_nL-agxacgzYHjxPcF99kJsFzWg"
}
