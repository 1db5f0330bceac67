togetheraiToken := "tgp_v1_zVx_3C4DhV3bweoslP9HVDGjTeDcEvH-iDEYnk09syV"
