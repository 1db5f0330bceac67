dopplerToken := "dp.pt.282515ye610maiw2vawacf935e9il96m56jf8q6smzc"
