LAUNCHDARKLY_TOKEN = "1-f2la_1_ai2d9trqqma_obzyfv1p8qn_rd45s94"
