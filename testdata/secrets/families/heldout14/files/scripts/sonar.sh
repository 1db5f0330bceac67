#!/bin/sh
mvn sonar:sonar -Dsonar.token=fa5bb712f143b2e1419fdb805045a3f690413fc9 -Dsonar.projectKey=shop
