renderToken := "rnd_AhUf8XgKzdq1VlNwBaMBAnMHyIlk"
