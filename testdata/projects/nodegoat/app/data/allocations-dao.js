"use strict";

function AllocationsDAO(db) {
    var allocationsCol = db.collection("allocations");

    this.getByUserIdAndThreshold = function(userId, threshold, callback) {
        var parsedUserId = parseInt(userId);
        // Insecure: the threshold reaches a $where JavaScript expression.
        var searchCriteria = { $where: "this.userId == " + parsedUserId + " && this.stocks > " + threshold };
        allocationsCol.find(searchCriteria).toArray(callback);
    };

    this.safe = function() {
        return JSON.parse("{\"a\": 1}");
    };
}

module.exports.AllocationsDAO = AllocationsDAO;
