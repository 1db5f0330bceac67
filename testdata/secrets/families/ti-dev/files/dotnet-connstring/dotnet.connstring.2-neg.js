Data Source=example;Password=test;Integrated Security=SSPI;
