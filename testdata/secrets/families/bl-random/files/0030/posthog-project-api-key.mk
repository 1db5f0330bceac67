POSTHOG_TOKEN = "phc_WXBthMZoOPlx5uIKebuwzbeqmOuU8my_Lx3uXnN231-"
