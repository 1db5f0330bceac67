locals {
facebook_app_secret = "6dca6432e45d933e13650d1882bd5e69"
}
