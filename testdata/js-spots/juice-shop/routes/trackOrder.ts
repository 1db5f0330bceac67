// Shape of juice-shop routes/trackOrder.ts: the order id from the path is
// written into a $where JavaScript expression.
import utils = require('../lib/utils')
const db = require('../data/mongodb')

module.exports = function trackOrder () {
  return (req, res) => {
    const id = utils.disableOnContainerEnv() ? String(req.params.id).replace(/[^\w-]+/g, '') : req.params.id
    db.orders.find({ $where: `this.orderId === '${id}'` }).then(order => {
      res.json(order)
    }, () => {
      res.status(400).json({ error: 'Wrong Param' })
    })
  }
}
