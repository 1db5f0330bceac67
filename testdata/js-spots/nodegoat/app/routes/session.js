// Shape of OWASP NodeGoat app/routes/session.js: the user name from the
// login form is written to the log unencoded (A1 log injection).
function SessionHandler(userDAO) {
    "use strict";

    this.handleLoginRequest = function(req, res, next) {
        var userName = req.body.userName;
        var password = req.body.password;

        userDAO.validateLogin(userName, password, function(err, user) {
            if (err && err.noSuchUser) {
                console.log("Error: attempt to login with invalid user: ", userName);
                return res.render("login", { userName: userName, password: "", loginError: "Invalid username" });
            }
            req.session.userId = user._id;
            return res.redirect("/dashboard");
        });
    };

    this.isLoggedInMiddleware = function(req, res, next) {
        if (req.session.userId) {
            return next();
        }
        console.log("redirecting to login");
        return res.redirect("/login");
    };
}

module.exports = SessionHandler;
