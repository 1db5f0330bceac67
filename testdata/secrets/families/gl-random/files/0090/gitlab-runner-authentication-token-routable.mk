GITLAB_TOKEN = "glrt-t8_xx2tvduk5zhmiyhqv58ww18y7m0.wj2cjdmwr"
