GITHUB_TOKEN = "gho_m8jeq11h7l0zjmhu0re9le2xqu89puxzqni9"
