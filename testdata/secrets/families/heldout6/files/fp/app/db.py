engine = create_engine(url, connect_args={"password": None})
conn = pymysql.connect(host=h, user=u, password=pw, db="app")
