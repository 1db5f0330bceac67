// Shape of juice-shop routes/captcha.ts: the captcha answer is computed by
// compiling the expression string into a function.
export function captchas () {
  return async (req, res) => {
    const operators = ['*', '+', '-']
    const firstTerm = Math.floor((Math.random() * 10) + 1)
    const secondTerm = Math.floor((Math.random() * 10) + 1)
    const firstOperator = operators[Math.floor((Math.random() * 3))]
    const expression = firstTerm.toString() + firstOperator + secondTerm.toString()
    const answer = Function('"use strict"; return (' + expression + ')')().toString()
    res.json({ captcha: expression, answer })
  }
}
