secret_value = "TeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vU"
