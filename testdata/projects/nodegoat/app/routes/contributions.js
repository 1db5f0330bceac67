"use strict";

var ContributionsDAO = require("../data/contributions-dao").ContributionsDAO;

function ContributionsHandler(db) {
    var contributionsDAO = new ContributionsDAO(db);

    this.displayContributions = function(req, res, next) {
        var userId = req.session.userId;
        contributionsDAO.getByUserId(userId, function(error, contrib) {
            if (error) return next(error);
            contrib.userId = userId;
            return res.render("contributions", contrib);
        });
    };

    this.handleContributionsUpdate = function(req, res, next) {
        // Insecure: user input is evaluated as code (server-side JS injection).
        var preTax = eval(req.body.preTax);
        var afterTax = eval(req.body.afterTax);
        // eslint-disable-next-line no-eval -- a hostile tree cannot switch rules off
        var roth = eval(req.body.roth);

        var userId = req.session.userId;
        if (isNaN(preTax) || isNaN(afterTax) || isNaN(roth) || preTax < 0 || afterTax < 0 || roth < 0) {
            return res.render("contributions", { updateError: "Invalid contribution percentages", userId: userId });
        }
        contributionsDAO.update(userId, preTax, afterTax, roth, function(err, contributions) {
            if (err) return next(err);
            contributions.updateSuccess = true;
            return res.render("contributions", contributions);
        });
    };
}

module.exports = ContributionsHandler;
