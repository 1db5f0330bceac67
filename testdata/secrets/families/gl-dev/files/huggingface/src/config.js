const api_org_controller = require('../../controllers/api/index').organizations;
