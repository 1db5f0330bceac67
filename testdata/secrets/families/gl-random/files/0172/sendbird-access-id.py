sendbirdToken = "9e464c54-211e-31c6-d583-caea12adc6f9"
