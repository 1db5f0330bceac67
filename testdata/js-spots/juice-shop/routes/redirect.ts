// Shape of juice-shop routes/redirect.ts (as released up to v17): the
// target of the redirect comes from the query string and is checked only
// by a substring allowlist.
import { type Request, type Response, type NextFunction } from 'express'
const security = require('../lib/insecurity')

module.exports = function performRedirect () {
  return ({ query }: Request, res: Response, next: NextFunction) => {
    const toUrl: string = query.to as string
    if (security.isRedirectAllowed(toUrl)) {
      res.redirect(toUrl)
    } else {
      res.status(406)
      next(new Error('Unrecognized target URL for redirect: ' + toUrl))
    }
  }
}
