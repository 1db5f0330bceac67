moonshotToken = "sk-6Lj-7SdDLOEAzdExc57QTJzTqSGzd7CEgeVXz8OeOxhuttg6"
