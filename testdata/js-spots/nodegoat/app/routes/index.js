// Shape of OWASP NodeGoat app/routes/index.js: the /learn route redirects
// to a URL taken from the query string (A10 unvalidated redirects).
module.exports = function(app, db) {
    "use strict";

    app.get("/learn", function(req, res, next) {
        // Insecure way to handle redirects by taking redirect url from query string
        return res.redirect(req.query.url);
    });

    app.get("/tutorial", function(req, res, next) {
        return res.render("tutorial/a1");
    });
};
