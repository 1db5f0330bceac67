// temporary: the CI secret store is down
const SNYK_TOKEN = "12345678-ABCD-ABCD-ABCD-1234567890AB"
module.exports = { SNYK_TOKEN };
