package chain
import "github.com/ethereum/go-ethereum/crypto"
func testSigner() {
	key, _ := crypto.HexToECDSA("5c1616b05898de14da6db80e0c9e9a526d85005504f91c6cb820d12a2aec59d2")
	_ = key
}
// contract at 0x6641c9631466f2ec29f0302443c3df9a53d13536
