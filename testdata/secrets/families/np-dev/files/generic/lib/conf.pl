password   =>   "super$ecret"
