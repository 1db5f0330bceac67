cookie_secret = "7UACNWiP3sFd67JikEAvstqVVPqzPptE"
