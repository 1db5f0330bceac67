import "github.com/ethereum/go-ethereum/crypto"
var relayerKey, _ = crypto.HexToECDSA("db349e9efc582f74e2efbdc352a2fad679e96f4076ddac2468841c04f746968e")
var fromEnv, _ = crypto.HexToECDSA(os.Getenv("RELAYER_KEY"))
