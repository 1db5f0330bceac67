// Shape of juice-shop routes/fileUpload.ts: an uploaded XML file is parsed
// by libxmljs with entity expansion on (noent: true, XXE), inside a vm
// context; zip entries are written under their own names (zip slip).
import fs = require('fs')
const libxml = require('libxmljs2')
const os = require('os')
const path = require('path')
const vm = require('vm')
const unzipper = require('unzipper')

function handleZipFileUpload ({ file }, res, next) {
  const tempFile = path.join(os.tmpdir(), file.originalname.toLowerCase())
  fs.writeFileSync(tempFile, file.buffer)
  fs.createReadStream(tempFile)
    .pipe(unzipper.Parse())
    .on('entry', function (entry) {
      const fileName = entry.path
      entry.pipe(fs.createWriteStream('uploads/complaints/' + fileName))
    })
  res.status(204).end()
}

function handleXmlUpload ({ file }, res, next) {
  const data = file.buffer.toString()
  try {
    const sandbox = { libxml, data }
    vm.createContext(sandbox)
    const xmlDoc = vm.runInContext('libxml.parseXml(data, { noblanks: true, noent: true, nocdata: true })', sandbox, { timeout: 2000 })
    res.status(410)
    next(new Error('B2B customer complaints via file upload have been deprecated: ' + xmlDoc.toString(false)))
  } catch (err) {
    next(err)
  }
}

function handleXmlUploadDirect ({ file }, res, next) {
  const xmlDoc = libxml.parseXml(file.buffer.toString(), { noblanks: true, noent: true, nocdata: true })
  res.json({ root: xmlDoc.root().name() })
}

module.exports = { handleZipFileUpload, handleXmlUpload, handleXmlUploadDirect }
