client = MongoClient(host="mongo", port=27017, username="svc", password=None, authSource="admin")
db = pymysql.connect(host='mysql.internal', user='reporter', password=None, database='stats')
conn = pyodbc.connect(driver="{ODBC Driver 18}", server=srv, database="crm", uid=user, pwd=secret_from_vault)
DSN = "Driver={ODBC Driver 18 for SQL Server};Server=sql02;Database=crm;Uid=crm_app;Pwd=vuvcaytIxq8Y#2;"
