finicityToken := "uq0qmyc9x9hwhep6o9tt"
