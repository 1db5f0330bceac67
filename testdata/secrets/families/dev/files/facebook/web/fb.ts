export const fbAppSecret = "babda1df59b110d0776992686163ff2c";
FB_CLIENT_SECRET: "ad7ca415a10ff809afb4c7775577002d"
