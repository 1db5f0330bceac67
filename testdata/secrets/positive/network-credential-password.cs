var client = new SmtpClient("smtp.internal");
client.Credentials = new NetworkCredential("mailer@corp.internal", "Hn3vQz8rTk2m");
var ldap = new DirectoryEntry("LDAP://dc01.corp.internal", @"CORP\svc_ldap", "pX9!wL4eRt7s");
