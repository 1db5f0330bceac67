Data Source=sqlserver01;Integrated Security=SSPI;Database=HR
