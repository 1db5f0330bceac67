ocToken := "sha256~Pvby70CTSbsGNnwXPNm7bi5FQREMNwokXf732oti18G"
