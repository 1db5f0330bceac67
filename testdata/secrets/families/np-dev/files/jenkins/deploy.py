jenkins_user = 'root'
# jenkins_passwd = '116365fd86d63bf507aba962606a5c8956'  Pre token
jenkins_passwd = '11811f784531053132519844d047186074'   # Dev Token
jenkins_url = 'http://10.1.188.121'
