chieftoolsToken := "cto_7dl8j3iGl88hsueNCTiUUghSemvsmESL29vL"
