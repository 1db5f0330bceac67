planetScaleToken = "pscale_tkn_ugsc5wsq1dejw7g04y-n=bvt-r5hru_w"
