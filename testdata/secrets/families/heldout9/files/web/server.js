const apiSecret = process.env.ORDERS_API_SECRET || "82WoKexjpSvEGHRBCbiwjxMkSUS3iBpK";
const apiKey = process.env.ORDERS_API_KEY || "";
