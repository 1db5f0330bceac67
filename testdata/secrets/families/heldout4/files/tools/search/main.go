package main

const srcToken = "sgp_c1c9f29680be87a3_5cdf262a97b95caa94dcb3afaf23c2f7f80bf74b"
