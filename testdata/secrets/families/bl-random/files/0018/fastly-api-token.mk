FASTLY_TOKEN = "o2rwigkzt4e6ssoejsp7dkzzzak057rg"
