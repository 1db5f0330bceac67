# live keys look like sk_live_xxxxxxxxxxxxxxxxxxxxxxxx
