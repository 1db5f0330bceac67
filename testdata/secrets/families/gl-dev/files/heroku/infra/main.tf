locals {
heroku_api_key = "832d2129-a846-4e27-99f4-7004b6ad53ef"
}
