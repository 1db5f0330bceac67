const jwtSecret = "BMmVq9qZGRgzX97dwNYMxpshVcUbylP9";
