  const password = process.env.REACT_APP_FIREBASE_DEV_PASSWORD || "not-set"
