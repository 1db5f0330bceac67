finicityToken = "74fda8825ebecd036a22261c2d89fd31"
