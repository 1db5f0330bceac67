braintree_token = "production_tb6hdf42_y9mjfhhagky8d514"
