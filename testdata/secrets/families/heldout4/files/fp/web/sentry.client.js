Sentry.init({ dsn: "https://3757c47c1f7e3b0937393088dd37a5b8@o848794.ingest.us.sentry.io/6853061" });
