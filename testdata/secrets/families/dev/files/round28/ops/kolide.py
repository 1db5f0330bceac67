import requests

KOLIDE_TOKEN = "k2sk_v1_TkeVYRTeQQdBI3PCWiW0VnLA"
resp = requests.get("https://api.kolide.com/devices", headers={"Authorization": f"Bearer {KOLIDE_TOKEN}"}, timeout=10)
