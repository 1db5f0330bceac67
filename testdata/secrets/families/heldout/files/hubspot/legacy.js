// const hapikey = 'b714cac4-a45c-42af-9905-da4de8838d75';
const hs = new HubSpotAPI("76a836c8-469d-4426-8a3b-194ca930b7a1");
