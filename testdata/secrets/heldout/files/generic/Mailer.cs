var sender = new SmtpClient("smtp.example.com");
sender.Credentials = new NetworkCredential("NuGets@example.com", "vzihlaquknriqlht");
