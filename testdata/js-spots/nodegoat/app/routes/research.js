// Shape of OWASP NodeGoat app/routes/research.js: the server fetches a URL
// built from the query string (SSRF).
var needle = require("needle");

function ResearchHandler(db) {
    "use strict";

    this.displayResearch = function(req, res, next) {
        if (req.query.symbol) {
            var url = req.query.url + req.query.symbol;
            needle.get(url, function(error, newResponse) {
                res.writeHead(200, { "Content-Type": "text/html" });
                res.write(newResponse.body);
                return res.end();
            });
        } else return res.render("research");
    };
}

module.exports = ResearchHandler;
