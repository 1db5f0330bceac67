jiraToken = "gwxirxl4xcarbifd0ki880f3"
