Hubspot::Client.new(access_token: "pat-eu1-e7227c3f-4db5-a2a6-2f38-5f56420ece36")
