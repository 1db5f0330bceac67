TEST_SNYK_TOKEN = "b4995a4a-beb6-ecf5-5739-6d484789d217"  # pragma: allowlist secret
# pragma: allowlist nextline secret
TEST_SONAR_TOKEN = "squ_12c0a52d15fd877db2b0085fcbb44acebf722362"
TEST_SLACK = "xoxb-250545778539-588614705193-krizjZcYb3XVJS0r1A0RhIjR"  # trufflehog:ignore
PROD_SONAR_TOKEN = "squ_041a6722a1eb4fbeb77d23c4fad62e117e100e8c"
