HEROKU_API_KEY=03b5b495-dd98-ab74-bcf1-ebad83e7c097 heroku releases
