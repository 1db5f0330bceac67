planetScaleToken := "pscale_pw_nzn7-4-o2asg=7wj9crhr2bscbacs1v78=m=92jvqli-aw3cau6hr40ym88w_z=a"
