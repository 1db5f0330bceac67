harnessToken = "pat.VN-k_8iLC2spq7EdrrTF6z.dc395eb491402dde75fbc193.bnmag5gi5l2a13jc12pq"
