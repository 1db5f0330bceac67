<?php
$user = $_POST["username"];
echo 'password = '.$p['config']['daemon_password']."\n";
sb.append("MasterUserPassword: " + getMasterUserPassword() + ",");
