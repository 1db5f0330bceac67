from hubspot import HubSpot
api_client = HubSpot(access_token="pat-na1-1c311031-622a-5f0c-1bff-7aca29d38df3")
