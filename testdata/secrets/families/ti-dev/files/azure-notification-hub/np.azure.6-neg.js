const hubAccessKey = $KEY;
hubAccessKey = process.env.HUB_ACCESS_KEY;
