const clientSecret = "pC17Q~TkZ5TaEpHcK5hh1iqrZ~HzUW7fz7A9y";
