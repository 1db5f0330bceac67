curl -u tBsPD07kMOzOQvJFqataWXIUmX4yU3wZAPdZvwZX: "https://sonarcloud.io/api/issues/search?componentKeys=corp_orders"
