// Shape of juice-shop routes/showProductReviews.ts: the product id from the
// path is concatenated into a $where JavaScript expression.
import utils = require('../lib/utils')
import * as db from '../data/mongodb'

module.exports = function productReviews () {
  return (req, res, next) => {
    const id = utils.trunc(req.params.id, 40)
    db.reviewsCollection.find({ $where: 'this.product == ' + id }).then((reviews) => {
      res.json(reviews)
    }, () => {
      res.status(400).json({ error: 'Wrong Params' })
    })
  }
}
