curl -u developer:yqDVtkqPECriaLRi
curl --user roger23@gmail.com:pQ9wTxu4Fg https://www.dropbox.com
