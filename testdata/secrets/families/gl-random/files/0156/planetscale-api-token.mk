PLANETSCALE_TOKEN = "pscale_tkn_kzb=uao_3o2gmhkvlqomo76zsfxk=cm4"
