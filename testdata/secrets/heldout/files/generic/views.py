my_password = ""
my_password = True
my_password = request.json_body['hey']
login(username=username, password=password)
my_password = "fakesecret"
