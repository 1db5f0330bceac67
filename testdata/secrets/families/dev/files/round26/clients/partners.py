PARTNER_HEADERS = {"Authorization": "acme_aruwK7eqxd7cs5f4PCB9TrPh2Or0VVvawcf2rDmh"}
SANDBOX = "acme_sandbox_Wq4rT8yU2iO6pA0sD3fG7hJ1kL5zX9cV2bN6mQ4wE8"
STRIPE_PUBLISHABLE = "pk_live_Y4hSLCoB70ZgvrKstSUVKxdKgX9AWJKayqOZ6mg4"
def test_validateTokenExpiresAfterThirtyDays2(self):
BUNDLE = "/static/js/app_aruwK7eqxd7cs5f4PCB9TrPh2Or0VVvawcf2rDmh.js"
