$apiKey = "SK3fe28fe9fd7168b91f6a42112b9e78a0";
