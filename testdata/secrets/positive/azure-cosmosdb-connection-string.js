// A Cosmos DB connection string from before identifiable keys (no ACDb signature).
const conn = "AccountEndpoint=https://orders-eu.documents.azure.com:443/;AccountKey=rzS3edWMEmigOFA2aPYr/TCXtlh4uH9rQgtso1JZJuoBvFLrgF7NIE7svtl7Zy0bQjcr3DmbOqfVq2eB14GUbg==;";
module.exports = { conn };
