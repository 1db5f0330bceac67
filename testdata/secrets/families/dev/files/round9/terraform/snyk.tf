variable "snyk_api_token" {
  description = "token for the Snyk provider"
  default     = "05fd2d24-90ca-4c61-6e8c-4bf144d33349"
}
