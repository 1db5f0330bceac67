const hubspot = require('@hubspot/api-client');
const hubspotClient = new hubspot.Client({ accessToken: 'pat-eu1-a5e2dc3f-44bf-5d3b-32ea-cc7c5b3f0481' });
