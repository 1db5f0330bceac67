String appId = "294790898041575";
String appSecret = "ce3f9f0362bbe5ab01dfc8ee565e4372"; // facebook
