apiAuth = "aeOV4qBkdfQ1y3GQsMpSscDlkrCaqx9v"
