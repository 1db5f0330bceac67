const hubspot = require('hubspot');
const api = new hubspot({ apiKey: '6a4ecb44-5c51-4312-b589-763df0078875' });
