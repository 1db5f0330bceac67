public static GAPIS_CREDENTIALS = {
  // 1. Generate credentials: https://console.cloud.google.com/apis/
  client_id: '132261435625-69ubohrvppjr9hcc5t9uighsb7j2cqhv.apps.googleusercontent.com',
  client_secret: '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',
  redirect_uri: `http://localhost:${Config.OAUTH_HTTP_PORT}/oauth2callback`
};
