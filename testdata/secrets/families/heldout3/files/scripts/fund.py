from web3 import Web3
acct = w3.eth.account.from_key("0x83bc628922030d1a1d399062ffc524bdd97111fba437969aebef0c5581687e15")
dev = accounts.add("a4600ed57fd13f6794fd8bb75cc4f27267f853b547d80ee9e2d258e6da7a665d")
tx_hash = "0x8d66796dc9fbde7a693178794df5c98c8e41f183a04c2b9b9d9f03c0fefdd4d8"
