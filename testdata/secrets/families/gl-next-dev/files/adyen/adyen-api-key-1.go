nonMatchingToken := "AXEXXF9WXIGEYSslBo43qgguc6STNscLe"
