JENKINS_API_TOKEN="11a070733aa86e31cbaf8dda78aa5ffc95"
jenkins_token: 118bc5b4eb7d9f7e682a7e9c41968cf6bd
JENKINS_BUILD_ID=11041
curl -X POST "$JENKINS_URL/job/deploy/build" --user "ci:$JENKINS_API_TOKEN"
