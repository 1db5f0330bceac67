$password = $input;
