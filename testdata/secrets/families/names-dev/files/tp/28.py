private_key = "ciOx9gy1CJdObOIRpFqaDZeV7G5IfQHe"
