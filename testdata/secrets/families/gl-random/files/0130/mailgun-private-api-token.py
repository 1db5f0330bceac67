mailgunToken = "key-117e9096effff871894f48a97993c5bf"
