// Shape of juice-shop routes/userProfile.ts: a user name of the form #{...}
// is evaluated as code (server-side template injection).
module.exports = function getUserProfile () {
  return (req, res, next) => {
    let username = req.body.username
    if (username.match(/#{(.*)}/) !== null) {
      const code = username.substring(2, username.length - 1)
      try {
        username = eval(code) // eslint-disable-line no-eval
      } catch (err) {
        username = '\\' + username
      }
    }
    res.send(username)
  }
}
