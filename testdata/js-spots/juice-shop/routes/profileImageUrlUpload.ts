// Shape of juice-shop routes/profileImageUrlUpload.ts: the server fetches
// the image URL from the request body (SSRF) and writes it to a file
// whose name is built at run time.
import fs = require('fs')
const security = require('../lib/insecurity')
const request = require('request')

module.exports = function profileImageUrlUpload () {
  return (req, res, next) => {
    if (req.body.imageUrl !== undefined) {
      const url = req.body.imageUrl
      const loggedInUser = security.authenticatedUsers.get(req.cookies.token)
      if (loggedInUser) {
        const imageRequest = request
          .get(url)
          .on('response', function (res) {
            const ext = url.split('.').slice(-1)[0].toLowerCase()
            imageRequest.pipe(fs.createWriteStream(`frontend/uploads/${loggedInUser.data.id}.${ext}`))
          })
      }
    }
    res.redirect(process.env.BASE_PATH + '/profile')
  }
}
