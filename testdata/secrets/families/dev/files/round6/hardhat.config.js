require("@nomicfoundation/hardhat-toolbox");
const privateKeys = ["0x926abc292c803bfd1c3dafbb650a909faea159a3a1b30c05453d339c721f25fb"];
