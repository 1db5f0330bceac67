curl -u 979b4f82:3ee97919 https://gems.contribsys.com/ -I
