poly_secretToken := "oU8t+ViX8VBMfDJu91BS1dhxRtm3+awnLjs3lf+p"
