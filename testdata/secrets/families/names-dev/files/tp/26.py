db_creds = "bttOofL9H2WjQ5TY4MyWuUFjsUNPjc01"
