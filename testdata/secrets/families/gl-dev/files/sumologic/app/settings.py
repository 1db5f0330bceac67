sumologic.accessId = "su9OL59biWiJu7"
