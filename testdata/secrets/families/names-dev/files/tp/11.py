basic_auth = "rEqmSM9wCZ7Uw9xfogoEmvnEN5N1aE6P"
