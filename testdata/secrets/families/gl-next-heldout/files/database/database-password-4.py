db_password_token = "Fq^e,VfTMmtI3LI8a1z7$<oEwShbTY<$GMKMJQNE<yKCp27p8S"
