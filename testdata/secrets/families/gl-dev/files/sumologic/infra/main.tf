locals {
sumologic_access_id = "sug5XpdpaoxtOH"
sumologic_access_id         = ""
sumo_access_key = "3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5"
sumo_access_key   = "<SUMOLOGIC ACCESS KEY>"
}
