fastlyToken = "dpi-9_pc5_3hds3nkfbemdq7di4v36d0"
