// Shape of juice-shop routes/quarantineServer.ts: a file name from the path
// is served from ftp/quarantine/ with res.sendFile.
import path = require('path')

module.exports = function serveQuarantineFiles () {
  return ({ params, query }, res, next) => {
    const file = params.file

    if (!file.includes('/')) {
      res.sendFile(path.resolve('ftp/quarantine/', file))
    } else {
      res.status(403)
      next(new Error('File names cannot contain forward slashes!'))
    }
  }
}
