// Shape of juice-shop routes/keyServer.ts: a file name from the path is
// served from encryptionkeys/ with res.sendFile.
import path = require('path')

module.exports = function serveKeyFiles () {
  return ({ params }, res, next) => {
    const file = params.file

    if (!file.includes('/')) {
      res.sendFile(path.resolve('encryptionkeys/', file))
    } else {
      res.status(403)
      next(new Error('File names cannot contain forward slashes!'))
    }
  }
}
