import psycopg2
conn = psycopg2.connect(host="db.internal", user="app", dbname="orders", password=None)
engine = create_engine(URL.create("postgresql", username=user, password=db_pass, host=host))
cache = redis.Redis(host="localhost", port=6379, db=0, password=None)
CONN = "Server=tcp:sql01.internal,1433;Database=orders;User ID=app;Password=i3r#B0W5ZTnpAU;Encrypt=true"
