mysql_connect($host, $user, $pass)
mysqli_connect($db_host, $db_user, $db_pass, $db_name)
