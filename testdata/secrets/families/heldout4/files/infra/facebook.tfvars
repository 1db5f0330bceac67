facebook_app_id     = "5003453718821680"
facebook_app_secret = "7164cce75826040105c7c973d75467c8"
