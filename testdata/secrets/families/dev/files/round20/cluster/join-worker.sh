kubeadm join 10.0.0.10:6443 --token rdb6if.vs88cbn0l3f021b1 --discovery-token-ca-cert-hash sha256:1e1dc4c1b1bd9dfaab1e5bd8ee6f6d3f1d8a8bc4c8b1c3f0e3d2e1e4b5c6d7e8
kubeadm token create k6ut0w.2cub5p6qnya22zzm --ttl 2h
kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef
