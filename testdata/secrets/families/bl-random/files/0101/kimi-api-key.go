moonshotToken := "sk-rCmtculuyFKq43X8AIE8PmS4eOLnOC-4Axx4UqEkyKSgxKxT"
