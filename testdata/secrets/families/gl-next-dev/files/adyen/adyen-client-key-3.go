nonMatchingToken := "prod_gkuk85UKYRxjWDCECJWIXRCtTyibWF4lH5"
