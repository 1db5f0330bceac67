<?php
//Database Info
$host = "localhost";
$database = "NHOHVA";
$user = "mg1021";
$password = "goodspec";
