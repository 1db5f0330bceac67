def connect(host, user, password=None):
    return psycopg2.connect(host=host, user=user, password=password)
