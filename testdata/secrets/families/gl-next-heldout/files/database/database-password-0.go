DB_PASSWORDToken := "ERoz5@4^Dohcls;QO9kP"
