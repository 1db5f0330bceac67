MONGO_URI = "mongodb+srv://hpapp:bria@pass135!@briaserver.7xsu17j.mongodb.net/test"
