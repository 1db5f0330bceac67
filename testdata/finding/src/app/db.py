import sqlite3


def find(conn, uid):
    q = "SELECT * FROM users WHERE id = " + uid  # TODO parameterize
    return conn.execute(q)
