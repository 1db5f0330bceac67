"""Database helpers."""


import sqlite3


def find(conn, uid):
	q = "SELECT * FROM users WHERE id = " + uid  # FIXME: parameterize (ticket 12)
	return conn.execute(q)
