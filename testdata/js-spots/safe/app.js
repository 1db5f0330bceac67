// The safe counterparts of the known spots: none of them may be reported
// by scand's own rules.
const path = require("path");
const fs = require("fs");
const vm = require("vm");
const axios = require("axios");
const libxml = require("libxmljs2");

module.exports = function routes(app, db, models) {
    app.get("/search", function(req, res, next) {
        // Bound parameters, not concatenation.
        models.sequelize.query("SELECT * FROM Products WHERE name LIKE :q", { replacements: { q: "%" + req.query.q + "%" } })
            .then((rows) => res.json(rows), next);
    });

    app.get("/orders/:id", function(req, res) {
        // Converted before it reaches the filter; no $where.
        db.orders.find({ orderId: String(req.params.id) }).then((o) => res.json(o));
        db.orders.find({ $where: function() { return this.total > 10; } });
        const bigOrder = function() { return this.total > 1000; };
        db.orders.find({ $where: bigOrder });
        const limit = parseInt(req.query.limit, 10);
        db.orders.find({ $where: "this.total > 10" }).limit(limit);
    });

    app.get("/", function(req, res) {
        res.sendFile(path.join(__dirname, "public", "index.html"));
    });

    app.get("/report", function(req, res) {
        const name = path.basename(req.query.name);
        res.download(path.join(__dirname, "reports", name));
        fs.readFile(path.join(__dirname, "static.txt"), () => {});
    });

    app.get("/static/*", function(req, res) {
        // Checked to stay under the root before it is opened.
        const file = path.normalize(path.join(__dirname, "public", req.path));
        if (!file.startsWith(path.join(__dirname, "public"))) {
            return res.sendStatus(403);
        }
        const gzipped = file + ".gz";
        fs.createReadStream(gzipped).pipe(res);
    });

    app.post("/items", function(req, res) {
        // A created item's URL on this host.
        res.location(`${req.protocol}://example.com/items/${req.body.id}`);
        res.location("/items/" + req.body.id);
        res.sendStatus(201);
    });

    app.get("/go", function(req, res) {
        res.redirect("/home");
        res.redirect(301, process.env.BASE_PATH + "/profile");
        res.redirect("/items/" + encodeURIComponent(req.query.id));
    });

    app.get("/rates", async function(req, res) {
        const rates = await axios.get("https://api.example.com/rates");
        res.json(rates.data);
    });

    app.post("/xml", function(req, res) {
        const doc = libxml.parseXml(req.body.xml, { noblanks: true });
        res.json({ root: doc.root().name() });
    });

    app.get("/calc", function(req, res) {
        const sandbox = { a: 1, b: 2 };
        vm.createContext(sandbox);
        res.json({ sum: vm.runInContext("a + b", sandbox) });
        console.log("calc served");
    });
};
