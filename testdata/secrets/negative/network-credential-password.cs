client.Credentials = new NetworkCredential(config["SmtpUser"], config["SmtpPassword"]);
client.Credentials = new NetworkCredential("user", "password");
var ldap = new DirectoryEntry("LDAP://dc01", user, password);
