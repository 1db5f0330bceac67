VISION_KEY = "lYocaAw1SOtwWl8jdxlJwRuAfMW8cO2n8r1QF1mXwGtc1gE8xuggJQQJ9DMLeqb3PXFzj8xxenQzACOGQ5Wy"
VISION_ENDPOINT = "https://acme-vision.cognitiveservices.azure.com/"
