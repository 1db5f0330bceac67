DATABASES = {"default": dj_database_url.config(default="sqlite:///db.sqlite3", conn_max_age=600, password=None)}
client = InfluxDBClient(url=url, token=token, org=org, password=influx_password)
