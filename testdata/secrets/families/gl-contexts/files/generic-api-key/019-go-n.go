var genericToken string = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB"
