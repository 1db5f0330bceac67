let accountName = $accountName;
let accountKey = Buffer.from("accountKey", "base64");
