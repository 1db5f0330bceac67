user = 'Aladdin'
password = 'open sesame'
