HEROKU_API_KEY=e54b669f-bbbe-4254-b637-80902e480b10 heroku container:release web -a shop-api
