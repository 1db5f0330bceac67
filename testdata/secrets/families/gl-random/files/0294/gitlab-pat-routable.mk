GITLAB_TOKEN = "glpat-ito771150x2x5ghaz2e7fn4yzrv.6o2goez37"
