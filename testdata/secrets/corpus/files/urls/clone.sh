git clone https://deploy:oWiYRSlKkD4fRtnRE215ZTaG@git.corp.internal/shop/api.git
