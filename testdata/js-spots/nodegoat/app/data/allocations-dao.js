// Shape of OWASP NodeGoat app/data/allocations-dao.js: the threshold
// parameter is written into a $where JavaScript expression (A1 NoSQL
// injection).
function AllocationsDAO(db) {
    "use strict";
    var allocationsCol = db.collection("allocations");

    this.getByUserIdAndThreshold = function(userId, threshold, callback) {
        var parsedUserId = parseInt(userId);

        function searchCriteria() {
            if (threshold) {
                return {
                    $where: `this.userId == ${parsedUserId} && this.stocks > '${threshold}'`
                };
            }
            return { userId: parsedUserId };
        }

        allocationsCol.findOne(searchCriteria(), callback);
    };
}

module.exports.AllocationsDAO = AllocationsDAO;
