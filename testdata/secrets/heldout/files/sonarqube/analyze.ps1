$sonarLogin = "4924be8f51f3e738c97db2c4ace51db7e938f28b"
/d:sonar.host.url=$(SONAR_HOST) /d:sonar.login=$(SONAR_LOGIN) \
