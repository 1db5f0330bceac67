poly_secretToken = "X+uR4q4tMMGCyyOdQVHF1m3T90JT8fyyJxbLR+bxz8Z+=="
