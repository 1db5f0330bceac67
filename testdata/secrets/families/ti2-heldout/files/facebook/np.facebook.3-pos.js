{"facebook": {"app_id": "1241440636013546", "app_secret": "c0acf898d0cf77b57dfae30210d6acf9"}}
"facebook": {"client_id":"675602312638739","client_secret":"912251e0d28f315451baa7ab63427c57"}
FACEBOOK = {"app_id": "884621454736122", "app_secret": "fd67f5083bc4791b06eccf6b08ccf437"}
