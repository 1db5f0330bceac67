// Shape of OWASP NodeGoat app/routes/profile.js: the bank routing number is
// validated with a catastrophic-backtracking regular expression (ReDoS).
function ProfileHandler(db) {
    "use strict";

    this.handleProfileUpdate = (req, res, next) => {
        const { bankRouting } = req.body;
        const regexPattern = /^([0-9]+)+\#$/;
        const testComplyWithRequirements = regexPattern.test(bankRouting);
        if (testComplyWithRequirements !== true) {
            return res.render("profile", { updateError: "Bank Routing number does not comply with requirements" });
        }
        return next();
    };
}

module.exports = ProfileHandler;
