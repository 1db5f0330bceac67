harnessToken := "sat.yvkC5Lf6_CM8IIrjLprm45.64082ea1de15614dcc2393b7.9ofqbz48smpvw4iiy6z2"
