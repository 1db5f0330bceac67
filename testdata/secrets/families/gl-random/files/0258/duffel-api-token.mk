DUFFEL_TOKEN = "duffel_test_b9-7mod6m_147k2y4t=01giafvl5le655-veofosfoj"
