resource "grafana_contact_point" "ops" {
  name = "ops"
  slack {
    url = "https://hooks.slack.com/services/TY40v9sZ9/BxIqhIXIi/NGUyXK6nK7HMAqd0ASzXluoV"
  }
}
