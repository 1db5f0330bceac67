resource "azurerm_function_app" "api" {
  name                       = "acme-api"
  storage_account_access_key = "HwNuKejU82Dh+wITW8gMP1wf60tueXz8I09IYozF6Gpq+0o3e0q9jbNUpq4glnugWU5e6u+PvcOJ+AStdHatLA=="
}
