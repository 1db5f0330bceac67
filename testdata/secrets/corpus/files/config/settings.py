DATABASES = {"default": {"PASSWORD": "fgyRa7eusn!9"}}
