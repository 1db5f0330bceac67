resource "azurerm_mssql_server" "main" {
  administrator_login = "sqladmin"
  administrator_login_password = "Aa12345678"
}
