key_file_prod = 'keys/IpU5nJMYZ7aqn09HtnM7Pvc2bOFkTlpJltgRSHUt.pem'
