var clientSecretRaw = "7cgClpGt7swyoOG3dtJdD4BksvRUPeqZ";
