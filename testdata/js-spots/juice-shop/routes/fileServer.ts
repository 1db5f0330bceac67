// Shape of juice-shop routes/fileServer.ts: a file name from the path is
// handed to a helper that serves it from ftp/ with res.sendFile.
import path = require('path')
const security = require('../lib/insecurity')

module.exports = function servePublicFiles () {
  return ({ params, query }, res, next) => {
    const file = params.file

    if (!file.includes('/')) {
      verify(file, res, next)
    } else {
      res.status(403)
      next(new Error('File names cannot contain forward slashes!'))
    }
  }

  function verify (file, res, next) {
    if (file && (file.endsWith('.md') || file.endsWith('.pdf'))) {
      file = security.cutOffPoisonNullByte(file)
      res.sendFile(path.resolve('ftp/', file))
    } else {
      res.status(403)
      next(new Error('Only .md and .pdf files are allowed!'))
    }
  }
}
