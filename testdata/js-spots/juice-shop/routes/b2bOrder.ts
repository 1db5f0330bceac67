// Shape of juice-shop routes/b2bOrder.ts: order lines from the request
// body are evaluated in a vm context (vm is not a security boundary).
import vm = require('vm')
const safeEval = require('notevil')

module.exports = function b2bOrder () {
  return ({ body }, res, next) => {
    const orderLinesData = body.orderLinesData || ''
    try {
      const sandbox = { safeEval, orderLinesData }
      vm.createContext(sandbox)
      vm.runInContext('safeEval(orderLinesData)', sandbox, { timeout: 2000 })
      res.json({ cid: body.cid })
    } catch (err) {
      next(err)
    }
  }
}
