// Shape of juice-shop routes/logfileServer.ts: a file name from the path is
// served from logs/ with res.sendFile.
import path = require('path')

module.exports = function serveLogFiles () {
  return ({ params }, res, next) => {
    const file = params.file

    if (!file.includes('/')) {
      res.sendFile(path.resolve('logs/', file))
    } else {
      res.status(403)
      next(new Error('File names cannot contain forward slashes!'))
    }
  }
}
