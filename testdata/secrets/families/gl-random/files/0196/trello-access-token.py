trelloToken = "w3K-cHp3O1HEqVekCB6-38piIDhuFgCL"
