provider "heroku" {
  email   = "ops@corp.internal"
  api_key = "C7FC6531-9EB4-AC33-8FD9-C953602ED4A3"
}
