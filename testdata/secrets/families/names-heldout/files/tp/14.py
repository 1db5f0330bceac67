aws_secret_access_key_backup = 'FA4tKo4MksZguh2mte5w7dl8'
