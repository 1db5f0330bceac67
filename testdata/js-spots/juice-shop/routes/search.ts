// Shape of juice-shop routes/search.ts: the product search query is built
// with a template literal from the q query parameter.
import * as models from '../models/index'
import { type Request, type Response, type NextFunction } from 'express'

module.exports = function searchProducts () {
  return (req: Request, res: Response, next: NextFunction) => {
    let criteria: any = req.query.q === 'undefined' ? '' : req.query.q ?? ''
    criteria = (criteria.length <= 200) ? criteria : criteria.substring(0, 200)
    models.sequelize.query(`SELECT * FROM Products WHERE ((name LIKE '%${criteria}%' OR description LIKE '%${criteria}%') AND deletedAt IS NULL) ORDER BY name`)
      .then(([products]: any) => {
        res.json(products)
      }).catch((error: any) => {
        next(error.parent)
      })
  }
}
