const accessKey = "sc_rwokzfgzpp3h.rg9uy.acc_nip4knvm0ouv8h6gmzou.44z0+zy4yulcrffauji6f6ml03n27khuyh9tumpz2/5h1we/a9h/8tjwg5wkzkbz+l0z7hx9ywza2or9";
