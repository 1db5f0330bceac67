package ids

const buildID = "267aeec01bed901080021cf0b708c77bfe63b37c"

var sessionKeyPrefix = "session:"

const tokenTypeBearer = "Bearer"

const passwordResetRoute = "/password/reset"

const maxTokenLength = 4096

var secretName = "db-credentials"
