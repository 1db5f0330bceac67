planetScaleToken := "pscale_tkn_qf6b5d5q=d97_uz4wb9fb73u6fv5fvvnstquk_qah2j"
