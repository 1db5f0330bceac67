const config = { apiKey: 'p5KRa511nfitf78US5wE4TLZBYJh1yAb', region: 'eu' };
