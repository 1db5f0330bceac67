planetScaleToken := "pscale_oauth_sn7hf5hmkv1ul=9-n_1nocjhxl8y3dtm1u8=t3bsdkbo_3jl0b=6litnl2-2lhn="
