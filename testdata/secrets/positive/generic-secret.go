package api

const authToken = `dzcm5occN_H3Fou27YL0n5lgsofBHGPqpaW4QSJyDBOR9CmR`
