variable "sumologic_access_key" {
  type    = string
  default = "d4FztHv8IUT4E0rY8LA2tdpfwmWw8wTCpUopTRVvuTSpXlqGUia6FUhc5Lz0ZogF"
}
