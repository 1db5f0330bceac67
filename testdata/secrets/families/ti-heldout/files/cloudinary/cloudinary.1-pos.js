{"cloudinary_url":"cloudinary://509182734650918:9zAq2Wsx3Edc4Rfv5Tgb6Yhn7Uj@prod-assets"}
