poly_keyToken = "ca51f68d-838d-dd42-f594-f58eb1b9ff1f"
