url = URL.create("postgresql+psycopg2", username="app", password=None, host="db", database="app")
