linkedinToken = "uy29wnzl3mod71xe"
