netlifyToken := "sgrzgy_tm_32ke8xr8m--ys9kbt0ccvm0wgyg_56"
