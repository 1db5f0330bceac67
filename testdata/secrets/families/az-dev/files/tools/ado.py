org = "acme"
token = "wvrqkq0C9kAyagftoJ7LRj4i5wKLpkqOITjWjwVvD2g87jXYgb7mJQQJ99sJ38x5aDS9NOVFnhn8AZDO8G5p"
