const CONTRACT = '0xa4da60d1639be18d4a17c7bde4f5da8f78624158';
const TX = '0x29a791a75b3af1e968c6f4d6ac2334fdc19578fdf1a599e70f7e747bb2721fce'; // transaction hash
