provider "sumologic" {
  access_id  = "su9OL59biWiJu7"
  access_key = "3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5"
}
