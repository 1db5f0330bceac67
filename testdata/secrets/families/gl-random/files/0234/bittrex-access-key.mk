BITTREX_TOKEN = "rb3s7193a20tucrh366nmzt2p8k8enic"
