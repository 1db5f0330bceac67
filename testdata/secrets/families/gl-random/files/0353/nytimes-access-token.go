nytimesToken := "i7fzq2yk03eqaocpn3cbgkfjwu6qdtgz"
