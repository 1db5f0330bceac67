import * as Sentry from "@sentry/node";
Sentry.init({
  dsn: "https://804af20567615f10e3236c9932a63195@o4504983.ingest.sentry.io/4504983210",
  tracesSampleRate: 1.0,
});
