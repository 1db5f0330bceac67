"use strict";

var needle = require("needle");
var fs = require("fs");
var childProcess = require("child_process");

function ResearchHandler(db) {
    this.displayResearch = function(req, res) {
        if (req.query.symbol) {
            var url = req.query.url + req.query.symbol;
            return needle.get(url, function(error, newResponse, body) {
                res.writeHead(200, { "Content-Type": "text/html" });
                res.write("<h1>The following is the stock information you requested.</h1>");
                res.write(body);
                res.end();
            });
        }
        return res.render("research");
    };

    this.ping = function(req, res) {
        childProcess.exec("ping -c 1 " + req.query.host, function(err, stdout) {
            res.send(stdout);
        });
    };

    this.report = function(req, res) {
        var file = fs.readFileSync("reports/" + req.params.name);
        var pattern = new RegExp(req.query.filter);
        var formatter = require("./formatters/" + req.query.format);
        res.send(formatter(String(file).split("\n").filter(function(l) { return pattern.test(l); })));
    };
}

module.exports = ResearchHandler;
