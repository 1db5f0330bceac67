DATABASES = {"default": {"PASSWORD": os.environ.get("DB_PASSWORD")}}
conn = psycopg2.connect(host=DB_HOST, user=DB_USER, password=None)
my_password = True
login(username=username, password=password)
my_password = "fakesecret"
SENTRY_DSN = "https://4b057ceeec4e9f990b6282192e39a897@o961415.ingest.sentry.io/4684166"
