planetScaleToken = "pscale_pw_mb3lqom2cpe==qd0v01873vbheoxn=ig0x-4=2bptxu"
