lobToken := "test_pub_991a7eb3c1bb8bc6f6844fdc5f0782f"
