kimiToken = "sk-t-S-nhDFegmuO_g8WitOWUex3ZTzKsCi-L6_xhj2KAOya-ct"
