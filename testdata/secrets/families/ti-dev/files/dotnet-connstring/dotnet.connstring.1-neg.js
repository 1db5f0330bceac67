Data Source=myServer;Integrated Security=SSPI;
Data Source=myServer;Password=$ENV_PASSWORD;
Data Source=myServer;Password=****;
