settlemintTokenToken := "sm_sat_s1xcqpm3em8gt7sp"
