beamerToken := "b_l3m7wv8map9v-gqj_y37izsv2swrx0ic2q4-=a4yti_j"
