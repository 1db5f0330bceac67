const sessionSecretProduction = 'hhR4agky9IdLFBNEiTozq8Fa';
