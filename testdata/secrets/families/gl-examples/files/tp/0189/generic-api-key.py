genericToken = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB"
