SECRET_KEY = "django-insecure-123456789!%_&*^)abcdef"
