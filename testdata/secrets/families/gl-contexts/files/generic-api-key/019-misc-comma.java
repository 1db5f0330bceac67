System.setProperty("GENERIC_TOKEN", "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB")
