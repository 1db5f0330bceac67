let accountName = $accountName;
let accountKey = $accountKey;
