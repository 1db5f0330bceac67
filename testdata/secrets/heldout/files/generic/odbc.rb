conn = "driver={SQL Server};server=(#{datastore['DBHOST']});database=#{datastore['DBNAME']};uid=#{datastore['DBUID']};pwd=#{datastore['DBPASSWORD']}"
def login(self, user = '', password = '', domain = ''):
text << "Password=#{password}, "
