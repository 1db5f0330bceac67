<?php
include('layouts/header.php');
$shop = $_GET['shop'];
$token = "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";
$query = array(
