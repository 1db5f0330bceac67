private const string DevFolkoosComPfxPassword = "thisismypassword";
