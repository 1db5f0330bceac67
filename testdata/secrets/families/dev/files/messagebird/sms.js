const messagebird = require('messagebird').initClient('ozQWUkbxi684hglbubZc9xsvA');
messagebird.messages.create(params, callback);
