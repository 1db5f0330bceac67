app_secret_2 = "Jupc94tnwlavyfErGPmpGXafq0fjzLcz"
