var botToken string = "xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD"
