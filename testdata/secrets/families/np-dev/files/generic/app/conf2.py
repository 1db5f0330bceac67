password="super$ecret"
