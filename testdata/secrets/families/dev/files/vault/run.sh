./deployer -vaultToken hvs.CAESIP2jTxc9S2K7Z6CtcFWQv7-044m_oSsxnPE1H3nF89l3GiYKHGh2cy5sQmlIZVNyTWJNcDRsYWJpQjlhYjVlb1cQh6PL8wEYAg"
  credentials: new AWS.SharedIniFileCredentials({ profile: '<YOUR_PROFILE>' })
s.xxxxxxxxxxxxxxxxxxxxxxxx
s.makeKubeConfigController = args
