mvn verify sonar:sonar -Dsonar.host.url=https://sonarcloud.io -Dsonar.login=5524bf449ca45fcace54698371466398321f3a82
/d:sonar.host.url=$(SONAR_HOST) /d:sonar.login=$(SONAR_LOGIN) \
  resolved "https://registry.yarnpkg.com/sonarqube-scanner/-/sonarqube-scanner-2.5.0.tgz#ff704cbddf355d38a52c5e9479d6bb5c1ff28eac"
