branch.init("key_test_plqYW3Aq9Xija1cobGMieipndBzO5y7J");
