val apiSecret = System.getenv("PAYMENTS_API_SECRET") ?: "iSh3IuRTEODfhFtdx7BRwT6OJqjRKz"
val jwtSecret = System.getProperty("app.jwt.secret", "GY8VY1S3Pl2jfnh9zh7jy3neeSRu0flqbfQJ75Cy")
val fallback = System.getenv("PAYMENTS_API_SECRET") ?: ""
