finnhubToken := "lv0uy0z4rrbrpzhzthbc"
