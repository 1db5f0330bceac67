private static final String API_SECRET_QA = "Z57aT9jdcCbBrBBEYoIW2reX";
