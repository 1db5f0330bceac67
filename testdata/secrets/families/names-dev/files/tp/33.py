master_key = "uWv1zh87mTa5Vsqxezy3Lex7BWr2drgd"
