adobeToken := "895c5acf42db6f14079e4afa9c567089"
