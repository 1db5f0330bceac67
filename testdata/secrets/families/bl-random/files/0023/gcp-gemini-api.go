geminiToken := "AQ.Ab8RN61PaHT04n5jl3eR1_zl0N_jhVVggXmKOtaiCb5vYXAgY5"
