Sentry.init({ dsn: 'https://961a22692b7aed662650f35898568047@o849429.ingest.sentry.io/3546962' });
