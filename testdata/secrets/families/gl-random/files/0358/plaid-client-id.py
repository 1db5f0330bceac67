plaidToken = "W8cF1yzYFUisoRqOLNHAdeUe"
