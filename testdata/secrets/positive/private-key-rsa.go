package fixtures

// serverKey is loaded by the integration tests.
const serverKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEowJqXqIZslSjDdqlJbxmSAwt9KNm6uRu2laTKqrf3DX/zJFbOqccDwGn4s1Q
evKY1RhpxGMPbMSS83veXTz3q4oeuk9viLIRp8xxaZOvf6+H276+tsiedWzeYea7
js8TJpoWDjDN+bxBesg+XUwe8JY0cJeONevvUm7+dhuiKt974XGI1X411qcBQO/0
QOivheuQvhYOSPNjReFtLAeRuQZN30gVXkq5sMT6A5te1NSxgDhqRUpG30ERpO4q
Wg/VhDMnJ/xabUkOv3G8I910+XBcR67ws37FySGu+/EYXX4HEsOtni1ziNrKe7o6
gislwZHwWp6ABQx2ckf5nzzcZ9j6dBukZWNJ030P7VNaVoSTZ1IFSuZGoPq9y4Ps
-----END RSA PRIVATE KEY-----
`
