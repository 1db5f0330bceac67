from brownie import accounts, Token
owner = accounts.add("0x90c8249b9a42903e4c94be97dc88fd18c3983a6b599a769b226d48f8adebdc9c")
owner = accounts.load("deployer")
