use ethers::signers::LocalWallet;
let wallet: LocalWallet = "062b6360c5fd8b4d60b4e1dd15096a22bc610cd215d23f072dd64e6a15edaf15".parse()?;
