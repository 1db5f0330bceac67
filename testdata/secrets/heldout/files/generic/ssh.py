hostname = '10.11.12.13'
username = 'donjuandemarco@example.com'
password = '`123QWERasdf'
user = 'abuser'  # some comment
password = 'abuser123456'  # some other comment
