<?php
$password = $input;
