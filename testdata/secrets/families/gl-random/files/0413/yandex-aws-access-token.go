yandexToken := "YCTAXWm7Y4zVTMCa3Z0oLYYY-YthhOMCvE2jCu-x"
