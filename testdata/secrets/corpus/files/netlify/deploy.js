const netlifyToken = "NIW1BmZpdQeCiFS05HS_EImtsN0hcVABVPP20525c8o";
