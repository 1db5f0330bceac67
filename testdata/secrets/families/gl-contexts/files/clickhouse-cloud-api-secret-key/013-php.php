$ClickHouseToken .= "4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z"
