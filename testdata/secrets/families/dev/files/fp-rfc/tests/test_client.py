    headers = {"Authorization": "Bearer mF_9.B5f-4.1JqM"}
    admin_headers = {"Authorization": "Bearer 7f3Kq9ZxV2mN8pL4rT6wY1bC5dH0jS3u"}
