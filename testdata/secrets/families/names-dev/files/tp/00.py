api_key_prod = "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oO"
