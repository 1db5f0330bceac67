fastlyToken = "gxo28p0i_4rxe4r-t32edh47e_uzm27k"
