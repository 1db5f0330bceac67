// Shape of OWASP NodeGoat app/routes/contributions.js: request input
// evaluated as code (A1 server-side JavaScript injection).
function ContributionsHandler(db) {
    "use strict";

    this.handleContributionsUpdate = function(req, res, next) {
        var preTax = eval(req.body.preTax);
        var afterTax = eval(req.body.afterTax);
        var roth = eval(req.body.roth);
        var userId = req.session.userId;
        return res.render("contributions", { preTax: preTax, afterTax: afterTax, roth: roth, userId: userId });
    };
}

module.exports = ContributionsHandler;
