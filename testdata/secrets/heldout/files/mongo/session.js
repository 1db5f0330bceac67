var store = new MongoDBStore({
  uri: 'mongodb+srv://somethingrotten:Zxcvbnm@12345)@cluster0-cnc84.mongodb.net/e-commerce?retryWrites=true',
  collection: 'mySessions',
});
