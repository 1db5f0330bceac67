String authTokenCurrent = "zEcD4QaQnp26z3Qx8T2It83bGL8hdfYE0CyJmL7j";
