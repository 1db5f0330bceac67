hashicorpTokenToken := "44c206d17ef47e.atlasv1.ua6utoqxist1y7gcnmarsim6gwbaiu=e6j_at4-jcvyv_=gm37aff3pb3fb-o"
