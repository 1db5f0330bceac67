const { initClient } = require('messagebird');

function notifier() {
  const mb = initClient('k0KbAwiVTcEP35cAW4OmuT6tS');
  return mb;
}
