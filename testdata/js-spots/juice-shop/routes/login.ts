// Shape of juice-shop routes/login.ts (as released up to v17): the login
// query is built with a template literal from the request body.
import { type Request, type Response, type NextFunction } from 'express'
import * as security from '../lib/insecurity'
import * as models from '../models/index'
import { UserModel } from '../models/user'

export function login () {
  return (req: Request, res: Response, next: NextFunction) => {
    models.sequelize.query(`SELECT * FROM Users WHERE email = '${req.body.email || ''}' AND password = '${security.hash(req.body.password || '')}' AND deletedAt IS NULL`, { model: UserModel, plain: true })
      .then((authenticatedUser: any) => {
        res.json(authenticatedUser)
      }).catch((error: Error) => {
        next(error)
      })
  }
}
