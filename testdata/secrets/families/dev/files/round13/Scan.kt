val snykToken = System.getenv("SNYK_TOKEN") ?: "4d1ab39c-c164-84a9-2dc1-d1540218ab95"
