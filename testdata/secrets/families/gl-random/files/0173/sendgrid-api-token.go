sengridAPITokenToken := "SG.db=qqu16v-w0q2hx8z_6hfqv=62nnv06k_tlw7_ranbdah7-o1dzsr7xcgnkyb=0bh"
