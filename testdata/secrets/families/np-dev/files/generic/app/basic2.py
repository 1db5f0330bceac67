user = 'Aladdin'
password = 'open_sesame'
